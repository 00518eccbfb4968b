"""The Qt user interface: the only package that imports PySide6 and qasync."""

import PySide6.QtCore  # noqa: F401  (first, so the check below replaces PySide's own)

from acai_desktop.ui import pyside_import_check

pyside_import_check.install()  # before the window's few hundred modules are imported
