"""Every file dialog of the window: the desktop's own dialog, opening where the user was.

- **Native where the desktop has one.** Qt shows the platform's dialog (the portal or
  GTK on Linux desktops, Windows' and macOS' own) unless told not to; only where no
  desktop can show one (the offscreen and minimal platforms: tests, headless runs) is
  Qt's own dialog asked for, so that it can be driven there.
- **Where the user was.** Qt's own dialog opens in the working directory by default,
  which for a desktop app is wherever it was started from. These open in the folder a
  file was last chosen in (kept in the profile's settings, ``ui.last_folder``) or, the
  first time, in the user's home.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from acai_desktop.ui.preferences import load_last_folder, save_last_folder

log = logging.getLogger(__name__)
#: Platforms with no desktop to show a native dialog.
HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal", "vnc"})


def native_dialogs_possible(platform_name: str | None = None) -> bool:
    if platform_name is None:
        platform_name = QGuiApplication.platformName()
    return platform_name not in HEADLESS_PLATFORMS


class FolderMemory:
    """The folder the file dialogs open in, remembered in the profile's settings."""

    def __init__(self) -> None:
        self.settings_path: Path | None = None
        self.folder = ""

    def attach(self, settings_path: Path) -> None:
        """Remember in (and start from) this profile's settings file."""
        self.settings_path = settings_path
        self.folder = load_last_folder(settings_path)

    def start_folder(self) -> str:
        folder = Path(self.folder).expanduser() if self.folder else None
        if folder is not None and folder.is_dir():
            return str(folder)
        return str(Path.home())

    def remember(self, chosen: str) -> None:
        """A file or folder was chosen: its folder is where the next dialog opens."""
        path = Path(chosen)
        folder = str(path if path.is_dir() else path.parent)
        if not chosen or folder == self.folder:
            return
        self.folder = folder
        if self.settings_path is not None:
            try:
                save_last_folder(self.settings_path, folder)
            except OSError as error:  # a read-only profile: remembered until closing
                log.warning("could not remember the folder %s: %s", folder, error)


#: One for the window (the session attaches it to the open profile).
FOLDERS = FolderMemory()


def file_dialog(parent: QWidget | None, caption: str, *, start: str = "") -> QFileDialog:
    """A file dialog opening in ``start`` (a folder) or where the user last chose a file;
    what the user chooses there is remembered. The caller sets the mode and opens it."""
    dialog = QFileDialog(parent, caption, start or FOLDERS.start_folder())
    if not native_dialogs_possible():
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dialog.filesSelected.connect(_on_files_selected)
    return dialog


def _on_files_selected(paths: list[str]) -> None:
    if paths:
        FOLDERS.remember(paths[0])
