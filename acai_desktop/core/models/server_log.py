"""Where a managed model server's output goes: a file the person can read after a
failure, whose last lines are quoted in the error that says the server stopped."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO


class ServerLog:
    def __init__(self, path: Path | None) -> None:
        """``path`` None: a temporary file for each run, deleted when it stops (only the
        profile's servers keep a log in the profile)."""
        self.path = path
        self._temporary = path is None
        #: Open while the server runs (its stdout and stderr go here).
        self.file: BinaryIO | None = None

    def open(self) -> None:
        if self.path is None:
            handle, name = tempfile.mkstemp(prefix="acai-local-model-", suffix=".log")
            os.close(handle)
            self.path = Path(name)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "ab")  # noqa: SIM115 — lives as long as the server

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        if self._temporary and self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None

    def tail(self, lines: int = 12) -> str:
        """The log's last ``lines``, introduced for an error's text ("" if none)."""
        if self.path is None:
            return ""
        try:
            tail = self.path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return ("\nLast lines of the server's log:\n" + "\n".join(tail)) if tail else ""
