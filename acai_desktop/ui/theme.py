"""The application's look: Qt's Fusion style, a palette, a font stack and the stylesheet.

Every colour comes from one theme definition, ``resources/themes/<name>.json`` (light
and dark share the same names): the stylesheet template ``app.qss`` names colours as
``@name``, the palette is filled from it, and painted widgets (the chat delegate, the
syntax highlighting) ask :meth:`Theme.color`. :class:`ThemeController` applies the
user's choice — Light, Dark, or System, which follows the desktop's colour scheme live.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from acai_desktop.core.resources import resource_path, resource_text

DEFAULT_THEME = "light"
THEMES = ("light", "dark")
#: What the user can choose in Settings; "system" follows the desktop.
THEME_CHOICES = {"system": "Same as the system", "light": "Light", "dark": "Dark"}

# The first family the system has wins; DejaVu Sans is the Debian fallback.
FONT_FAMILIES = ["Inter", "Segoe UI", "SF Pro Text", "Cantarell", "Noto Sans", "DejaVu Sans"]
FONT_POINT_SIZE = 10

# Palette roles (what the stylesheet cannot reach: native dialogs, text cursors, the
# text of documents painted by delegates) and the theme colour each one takes.
PALETTE_ROLES = {
    QPalette.ColorRole.Window: "canvas",
    QPalette.ColorRole.WindowText: "ink",
    QPalette.ColorRole.Base: "surface",
    QPalette.ColorRole.AlternateBase: "sidebar",
    QPalette.ColorRole.Text: "ink",
    QPalette.ColorRole.PlaceholderText: "faint",
    QPalette.ColorRole.Button: "surface",
    QPalette.ColorRole.ButtonText: "ink",
    QPalette.ColorRole.Highlight: "accent",
    QPalette.ColorRole.HighlightedText: "on_accent",
    QPalette.ColorRole.ToolTipBase: "tooltip_bg",
    QPalette.ColorRole.ToolTipText: "tooltip_ink",
    QPalette.ColorRole.Link: "link",
    QPalette.ColorRole.LinkVisited: "link",
}
_NAME = re.compile(r"@([a-z_]+)")


@dataclass(frozen=True)
class Theme:
    name: str
    is_dark: bool
    colors: dict[str, str] = field(hash=False, compare=False)

    def color(self, name: str) -> QColor:
        return QColor(self.colors[name])

    def palette(self, base: QPalette | None = None) -> QPalette:
        palette = QPalette(base) if base is not None else QPalette()
        for role, name in PALETTE_ROLES.items():
            for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
                palette.setColor(group, role, self.color(name))
        palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, self.color("faint"))
        palette.setColor(
            QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, self.color("faint")
        )
        palette.setColor(
            QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, self.color("faint")
        )
        return palette

    def stylesheet(self) -> str:
        # Images in the stylesheet are named relative to the theme folder; Qt needs a
        # full path, which differs between a checkout, a wheel and the frozen bundle.
        folder = resource_path("themes", "app.qss").parent.as_posix()
        template = resource_text("themes", "app.qss").replace("{THEME_DIR}", folder)

        def colour(match: re.Match) -> str:
            return self.colors[match.group(1)]  # an unknown name is a bug: KeyError

        return _NAME.sub(colour, template)


@cache
def load_theme(name: str = DEFAULT_THEME) -> Theme:
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}; known: {', '.join(THEMES)}")
    data = json.loads(resource_text("themes", f"{name}.json"))
    return Theme(name=data["name"], is_dark=bool(data["dark"]), colors=dict(data["colors"]))


def stylesheet(name: str = DEFAULT_THEME) -> str:
    return load_theme(name).stylesheet()


def app_icon() -> QIcon:
    icon = QIcon()
    for file in ("acai-desktop.svg", "acai-desktop.png"):
        path = resource_path("icons", file)
        if path.is_file():
            icon.addFile(str(path))
    return icon


def apply_theme(app: QApplication, name: str = DEFAULT_THEME, *, stylesheet: bool = True) -> Theme:
    """Make ``name`` the application's theme: style, palette and font, then (unless
    ``stylesheet`` is False) its stylesheet. Each part is set only when it changes:
    restyling every widget again would only cost time.

    The application takes its palette and font before the window is built and its
    stylesheet after (``create_application``, ``AppController.run``): with a stylesheet
    set, each pane parented into the window re-styled its whole subtree, and a window
    built so cost 76 M more instructions, 4 % of a start (issue 22)."""
    theme = load_theme(name)
    if app.property("acai_palette") != name:
        app.setProperty("acai_palette", name)
        app.setStyle("Fusion")
        app.setPalette(theme.palette(app.palette()))
        font = QFont()
        font.setFamilies(FONT_FAMILIES)
        font.setPointSize(FONT_POINT_SIZE)
        app.setFont(font)
    if stylesheet and app.property("acai_theme") != name:
        app.setProperty("acai_theme", name)
        app.setStyleSheet(theme.stylesheet())
    return theme


def system_theme_name(scheme: Qt.ColorScheme | None = None) -> str:
    """The theme matching the desktop's colour scheme (light when it says nothing)."""
    if scheme is None:
        scheme = QGuiApplication.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


class ThemeController(QObject):
    """Applies the chosen theme to the application and, for "system", follows the
    desktop's colour scheme as it changes. Widgets that paint listen to ``theme_changed``."""

    theme_changed = Signal(object)  # Theme

    def __init__(self, app: QApplication, choice: str = "system", parent=None) -> None:
        super().__init__(parent)
        self.app = app
        self.choice = choice if choice in THEME_CHOICES else "system"
        self.theme = load_theme(self._resolve())
        self._connect_signals()

    def _connect_signals(self) -> None:
        QGuiApplication.styleHints().colorSchemeChanged.connect(
            self._on_style_hints_color_scheme_changed
        )

    def _resolve(self, scheme: Qt.ColorScheme | None = None) -> str:
        return system_theme_name(scheme) if self.choice == "system" else self.choice

    def apply(self) -> Theme:
        self.theme = apply_theme(self.app, self._resolve())
        self.theme_changed.emit(self.theme)
        return self.theme

    def set_choice(self, choice: str) -> Theme:
        self.choice = choice if choice in THEME_CHOICES else "system"
        return self.apply() if self._resolve() != self.theme.name else self.theme

    def _on_style_hints_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self.choice != "system":
            return
        name = self._resolve(scheme)
        if name != self.theme.name:
            self.theme = apply_theme(self.app, name)
            self.theme_changed.emit(self.theme)
