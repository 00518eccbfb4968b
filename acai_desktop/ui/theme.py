"""The application's look: Qt's Fusion style, a light palette, a font stack and the
stylesheet in ``resources/themes/``. Applied once, at start-up, to the QApplication."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from acai_desktop.core.resources import resource_path, resource_text

DEFAULT_THEME = "light"

# The first family the system has wins; DejaVu Sans is the Debian fallback.
FONT_FAMILIES = ["Inter", "Segoe UI", "SF Pro Text", "Cantarell", "Noto Sans", "DejaVu Sans"]
FONT_POINT_SIZE = 10

# Colours the stylesheet cannot reach (native dialogs, text cursors, disabled text).
PALETTE = {
    QPalette.ColorRole.Window: "#faf9fd",
    QPalette.ColorRole.WindowText: "#1f1d2b",
    QPalette.ColorRole.Base: "#ffffff",
    QPalette.ColorRole.AlternateBase: "#f3f1f8",
    QPalette.ColorRole.Text: "#1f1d2b",
    QPalette.ColorRole.PlaceholderText: "#9a96ab",
    QPalette.ColorRole.Button: "#ffffff",
    QPalette.ColorRole.ButtonText: "#1f1d2b",
    QPalette.ColorRole.Highlight: "#6a3fa0",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#1f1d2b",
    QPalette.ColorRole.ToolTipText: "#ffffff",
    QPalette.ColorRole.Link: "#6a3fa0",
}


def stylesheet(name: str = DEFAULT_THEME) -> str:
    # Images in the stylesheet are named relative to the theme folder; Qt needs a
    # full path, which differs between a checkout, a wheel and the frozen bundle.
    folder = resource_path("themes", f"{name}.qss").parent.as_posix()
    return resource_text("themes", f"{name}.qss").replace("{THEME_DIR}", folder)


def app_icon() -> QIcon:
    icon = QIcon()
    for file in ("acai-desktop.svg", "acai-desktop.png"):
        path = resource_path("icons", file)
        if path.is_file():
            icon.addFile(str(path))
    return icon


def apply_theme(app: QApplication, name: str = DEFAULT_THEME) -> None:
    app.setStyle("Fusion")
    palette = app.palette()
    for role, colour in PALETTE.items():
        palette.setColor(role, QColor(colour))
    app.setPalette(palette)
    font = QFont()
    font.setFamilies(FONT_FAMILIES)
    font.setPointSize(FONT_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(stylesheet(name))
