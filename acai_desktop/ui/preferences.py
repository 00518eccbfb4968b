"""The window's own preferences: the colour theme, what Enter does in the composer, and
which side panels show; and, apart from those, the folder the file dialogs last used.

Kept under the ``"ui"`` key of the profile's settings file, beside the model settings
(which keep theirs); a damaged or missing section means the defaults. The last folder is
its own key in that section, written by itself whenever a file is chosen, so that saving
the other preferences (from a Settings dialog opened earlier) never puts back an older one.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from acai_desktop.core.files.atomic import write_json_atomically
from acai_desktop.ui.theme import THEME_CHOICES

log = logging.getLogger(__name__)
SECTION = "ui"
LAST_FOLDER = "last_folder"


@dataclass(frozen=True)
class UiPreferences:
    theme: str = "system"  # "system", "light" or "dark"
    enter_sends: bool = True  # False: Enter starts a new line, Ctrl+Enter sends
    show_conversations: bool = True  # the left panel (Ctrl+B)
    show_memory: bool = True  # the memory panel (Ctrl+Shift+M)


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("could not read %s (%s); using the default appearance", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def load_ui_preferences(path: Path) -> UiPreferences:
    section = _read(path).get(SECTION)
    if not isinstance(section, dict):
        return UiPreferences()
    theme = section.get("theme")

    def flag(name: str) -> bool:
        value = section.get(name)
        return value if isinstance(value, bool) else True

    return UiPreferences(
        theme=theme if theme in THEME_CHOICES else "system",
        enter_sends=flag("enter_sends"),
        show_conversations=flag("show_conversations"),
        show_memory=flag("show_memory"),
    )


def _section(data: dict) -> dict:
    section = data.get(SECTION)
    return dict(section) if isinstance(section, dict) else {}


def save_ui_preferences(path: Path, preferences: UiPreferences) -> None:
    """Write the section, keeping the file's other keys and the last folder (atomic)."""
    data = _read(path)
    data[SECTION] = {**_section(data), **asdict(preferences)}
    write_json_atomically(path, data)


def load_last_folder(path: Path) -> str:
    """The folder a file dialog last opened a file in ("" when none is known)."""
    folder = _section(_read(path)).get(LAST_FOLDER)
    return folder if isinstance(folder, str) else ""


def save_last_folder(path: Path, folder: str) -> None:
    data = _read(path)
    data[SECTION] = {**_section(data), LAST_FOLDER: folder}
    write_json_atomically(path, data)
