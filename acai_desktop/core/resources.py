"""Access to the data files in ``resources/`` (installed as ``acai_desktop.resources``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_text(*parts: str) -> str:
    """The text of one resource file, e.g. ``resource_text("prompts", "triage.txt")``."""
    node = resources.files("acai_desktop.resources").joinpath(*parts)
    return node.read_text(encoding="utf-8")


def resource_path(*parts: str) -> Path:
    """A real file path for a resource (wheel, editable install or frozen bundle)."""
    node = resources.files("acai_desktop.resources").joinpath(*parts)
    return Path(str(node))
