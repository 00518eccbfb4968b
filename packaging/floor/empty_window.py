"""The floor the lean bundle is compared with: an empty PySide6 window, nothing else.

``--quit`` leaves before the event loop runs; ``--quit-after-ms MS`` quits MS ms into it,
as ``acai-desktop gui --quit-after-ms`` does (``bench startup --bare`` times it so)."""

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

app = QApplication(sys.argv[:1])
window = QMainWindow()
window.show()
if "--quit" in sys.argv:
    sys.exit(0)
if "--quit-after-ms" in sys.argv:
    QTimer.singleShot(int(sys.argv[sys.argv.index("--quit-after-ms") + 1]), app.quit)
sys.exit(app.exec())
