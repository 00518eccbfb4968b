"""Where a profile keeps its files: the data dir, the database, the settings file.

A profile holds private things (every conversation, what ACAI knows about the user,
maybe an API key), so its directory is created readable by the owner only (0700) and
the database with its journal files 0600 (see ``acai_desktop.core.store.private_files``).
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from acai_desktop.core.errors import InvalidInputError, StoreError
from acai_desktop.core.profile.store_choice import ServerAddress

log = logging.getLogger(__name__)

APP_NAME = "acai-desktop"
PRIVATE_DIR_MODE = 0o700
DATABASE_FILE = "acai.sqlite3"
SETTINGS_FILE = "settings.json"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class Profile:
    data_dir: Path
    #: Where the memory lives when not in the data dir's SQLite file: a PostgreSQL
    #: server (``--store``, or Settings → Store; core/profile/store_choice.py).
    server: ServerAddress | None = None

    @classmethod
    def at(cls, data_dir: str | Path | None, *, server: ServerAddress | None = None) -> Profile:
        """The profile in ``data_dir`` (``--data-dir``), or the platform default."""
        path = Path(data_dir).expanduser() if data_dir else default_data_dir()
        return cls(path.resolve(), server)

    @classmethod
    def with_store(cls, data_dir: str | Path | None, store: str | None) -> Profile:
        """The profile at ``data_dir`` with its store: ``store`` (``--store``: a URL, or
        "local" for this computer) for this run, else the one saved in its settings."""
        from acai_desktop.core.profile.store_choice import load_store_choice, parse_server_url

        profile = cls.at(data_dir)
        if store is not None and store.strip().lower() == "local":
            return profile
        server = parse_server_url(store) if store else load_store_choice(profile.settings_path)
        return cls.at(data_dir, server=server)

    def store_location(self) -> Path | str:
        """What :func:`~acai_desktop.core.store.store_url.open_store` opens: the SQLite
        file, or the server's URL with its password (from the keyring: in memory only,
        never written anywhere)."""
        if self.server is None:
            return self.database_path
        from acai_desktop.core.profile.store_choice import server_password

        return self.server.url(password=server_password(self))

    @property
    def database_path(self) -> Path:
        return self.data_dir / DATABASE_FILE

    @property
    def settings_path(self) -> Path:
        return self.data_dir / SETTINGS_FILE

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def models_dir(self) -> Path:
        """The built-in model's faster copy (core.models.fast_model_copy): safe to delete."""
        return self.data_dir / "models"

    @property
    def attachments_dir(self) -> Path:
        """The copies of the files attached in chats (core.documents.attachments)."""
        return self.data_dir / "attachments"

    def ensure(self) -> Profile:
        """Create the data dir (owner-only) if needed; an unusable one is refused with
        a :class:`~acai_desktop.core.errors.AcaiError` that says what to do."""
        if self.data_dir.exists() and not self.data_dir.is_dir():
            raise InvalidInputError(
                f"The data directory {self.data_dir} is a file, not a folder. Choose a "
                "folder with --data-dir (it is created if it doesn't exist)."
            )
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as error:
            raise StoreError(
                f"The data directory {self.data_dir} cannot be created "
                f"({error.strerror or error}). Check the permissions of its parent folder, "
                "or choose another one with --data-dir."
            ) from None
        _make_private(self.data_dir)
        return self


def _make_private(directory: Path) -> None:
    """Owner-only access to ``directory``: also a profile created before this rule, or a
    folder the user chose for it (it is the profile from now on)."""
    try:
        mode = stat.S_IMODE(directory.stat().st_mode)
        if mode & 0o077 and directory.stat().st_uid == os.getuid():
            os.chmod(directory, mode & ~0o077)
    except (OSError, AttributeError) as error:  # read-only media; no getuid on Windows
        log.debug("could not make %s private: %s", directory, error)
