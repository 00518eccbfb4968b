"""Files written whole or not at all: the text goes to a temporary file beside the target,
reaches the disk, and replaces the target in one rename. A full disk or a killed process
never leaves half a file where the old one was. Light on imports: the window uses it
before anything heavy is loaded."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_text_atomically(path: Path, text: str) -> None:
    """The folder must exist: a path the user chose is not created behind their back."""
    descriptor, temp_name = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def write_json_atomically(path: Path, data: dict) -> None:
    """Our own files (settings), in a folder made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
