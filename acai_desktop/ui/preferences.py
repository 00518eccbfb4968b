"""The window's own preferences: the colour theme and what Enter does in the composer.

Kept under the ``"ui"`` key of the profile's settings file, beside the model settings
(which keep theirs); a damaged or missing section means the defaults.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from acai_desktop.core.llm.settings import write_json_atomically
from acai_desktop.ui.theme import THEME_CHOICES

log = logging.getLogger(__name__)
SECTION = "ui"


@dataclass(frozen=True)
class UiPreferences:
    theme: str = "system"  # "system", "light" or "dark"
    enter_sends: bool = True  # False: Enter starts a new line, Ctrl+Enter sends


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
    enter_sends = section.get("enter_sends")
    return UiPreferences(
        theme=theme if theme in THEME_CHOICES else "system",
        enter_sends=enter_sends if isinstance(enter_sends, bool) else True,
    )


def save_ui_preferences(path: Path, preferences: UiPreferences) -> None:
    """Write the section, keeping the file's other keys (atomic)."""
    data = _read(path)
    data[SECTION] = asdict(preferences)
    write_json_atomically(path, data)
