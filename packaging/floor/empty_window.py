"""The floor the lean bundle is compared with: an empty PySide6 window, nothing else."""

import sys

from PySide6.QtWidgets import QApplication, QMainWindow

app = QApplication(sys.argv)
window = QMainWindow()
window.show()
if "--quit" in sys.argv:
    sys.exit(0)
sys.exit(app.exec())
