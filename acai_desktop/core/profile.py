"""Where a profile keeps its files: the data dir, the database, the settings file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "acai-desktop"
DATABASE_FILE = "acai.sqlite3"
SETTINGS_FILE = "settings.json"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class Profile:
    data_dir: Path

    @classmethod
    def at(cls, data_dir: str | Path | None) -> Profile:
        """The profile in ``data_dir`` (``--data-dir``), or the platform default."""
        path = Path(data_dir).expanduser() if data_dir else default_data_dir()
        return cls(path.resolve())

    @property
    def database_path(self) -> Path:
        return self.data_dir / DATABASE_FILE

    @property
    def settings_path(self) -> Path:
        return self.data_dir / SETTINGS_FILE

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    def ensure(self) -> Profile:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return self
