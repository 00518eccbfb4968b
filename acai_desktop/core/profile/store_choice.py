"""Where a profile's memory lives: this computer (the SQLite file in the data dir, the
default) or a PostgreSQL server the user names (issue 27, docs/architecture.md "Two
stores").

The choice is saved in the settings file as the server's address, database and user
(``"store"`` section); the password never is: it lives in the keyring through
:class:`~acai_desktop.core.models.api_keys.SecretStore`, and a password given inside a
``--store`` URL is used for that run only. Light on imports (no psycopg): the window
reads the choice before anything heavy is loaded.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.atomic import write_json_atomically

log = logging.getLogger(__name__)

SETTINGS_KEY = "store"
DEFAULT_PORT = 5432
URL_SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class ServerAddress:
    """A PostgreSQL database the memory lives in. ``host`` is a name, an IP address or
    (starting with "/") the directory of the server's Unix socket. ``password`` is set
    only for a run given one in its ``--store`` URL; it is never saved."""

    host: str
    database: str
    user: str
    port: int = DEFAULT_PORT
    password: str | None = None

    def __post_init__(self) -> None:
        for name in ("host", "database", "user"):
            if not str(getattr(self, name)).strip():
                raise InvalidInputError(f"The PostgreSQL server's {name} is empty.")
        if not 0 < int(self.port) < 65536:
            raise InvalidInputError(f"The port {self.port} is not a TCP port (1–65535).")

    @property
    def secret_name(self) -> str:
        """The password's name in the keyring: one password per user, server and database."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"

    def describe(self) -> str:
        """For messages: where the memory is, without the password."""
        where = self.host if self.host.startswith("/") else f"{self.host}:{self.port}"
        return f"the database “{self.database}” on {where} (user {self.user})"

    def url(self, *, password: str | None = None) -> str:
        """A libpq URL; with ``password`` only to open the store (kept in memory, never
        saved or logged: the store shows it redacted)."""
        user, database = quote(self.user, safe=""), quote(self.database, safe="")
        login = f"{user}:{quote(password, safe='')}" if password else user
        if self.host.startswith("/"):
            socket_dir = quote(self.host, safe="")
            return f"postgresql://{login}@/{database}?host={socket_dir}&port={self.port}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"postgresql://{login}@{host}:{self.port}/{database}"

    def without_password(self) -> ServerAddress:
        return replace(self, password=None)

    def to_settings(self) -> dict[str, object]:
        return {
            "kind": "postgresql",
            "host": self.host,
            "port": self.port,
            "database": self.database,
            "user": self.user,
        }


def is_server_url(text: str) -> bool:
    return urlsplit(text.strip()).scheme.lower() in URL_SCHEMES


def parse_server_url(text: str, *, default_user: str | None = None) -> ServerAddress:
    """``postgresql://user[:password]@host[:port]/database`` (or a socket directory as
    ``?host=/run/postgresql``) as an address; anything else is a clear one-line error."""
    parts = urlsplit(text.strip())
    if parts.scheme.lower() not in URL_SCHEMES:
        raise InvalidInputError(
            "--store takes a PostgreSQL URL such as postgresql://me@db.example.org/acai "
            f"(got {parts.scheme or 'no'} scheme)."
        )
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    unknown = sorted(set(query) - {"host", "port", "user", "password", "dbname"})
    if unknown:
        raise InvalidInputError(f"The store URL has parameters ACAI does not use: {unknown}.")
    try:
        port = int(query.get("port") or parts.port or DEFAULT_PORT)
    except ValueError as error:  # urlsplit's port raises on "host:abc"
        raise InvalidInputError(f"The store URL's port is not a number: {error}") from None
    host = query.get("host") or parts.hostname or ""
    database = query.get("dbname") or unquote(parts.path.lstrip("/"))
    user = query.get("user") or unquote(parts.username or "") or (default_user or "")
    password = query.get("password") or (unquote(parts.password) if parts.password else None)
    if not host:
        raise InvalidInputError(
            "The store URL names no server: give a host (postgresql://me@host/acai) or a "
            "socket directory (postgresql://me@/acai?host=/run/postgresql)."
        )
    if not database:
        raise InvalidInputError(
            "The store URL names no database: add it after the host (postgresql://me@host/acai)."
        )
    if not user:
        raise InvalidInputError("The store URL names no user: postgresql://USER@host/database.")
    return ServerAddress(host=host, database=database, user=user, port=port, password=password)


def server_password(profile) -> str | None:
    """The password for ``profile.server``: the one given in this run's URL, else the one
    saved in the keyring, else None (libpq then tries PGPASSWORD and ~/.pgpass)."""
    from acai_desktop.core.models.api_keys import SecretStore
    from acai_desktop.core.redaction import remember_secret

    address = profile.server
    if address.password:
        remember_secret(address.password)
        return address.password
    return SecretStore(profile.data_dir).get_server_password(address.secret_name)


# -- the settings file ------------------------------------------------------------------


def _read_settings(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise InvalidInputError(f"The settings file {path} can't be read: {error}") from None
    return data if isinstance(data, dict) else {}


def _readable_settings(path: Path) -> dict:
    """The settings for choosing the store. An unreadable file is reported where it is
    mended (the model settings' banner, the data dir's own check), not here twice."""
    try:
        return _read_settings(path)
    except InvalidInputError as error:
        log.debug("%s", error)
        return {}


def load_store_choice(settings_path: Path) -> ServerAddress | None:
    """The saved server, or None for this computer (nothing saved, or "local")."""
    section = _readable_settings(settings_path).get(SETTINGS_KEY)
    if not isinstance(section, dict) or section.get("kind") != "postgresql":
        return None
    try:
        return ServerAddress(
            host=str(section["host"]),
            database=str(section["database"]),
            user=str(section["user"]),
            port=int(section.get("port", DEFAULT_PORT)),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidInputError(
            f"The store settings in {settings_path} are incomplete ({error}); choose the "
            "store again in Settings."
        ) from None


def save_store_choice(settings_path: Path, address: ServerAddress | None) -> None:
    """Save the server (None: this computer), keeping the file's other keys. The
    password is never written here."""
    data = _read_settings(settings_path)
    data[SETTINGS_KEY] = {"kind": "local"} if address is None else address.to_settings()
    write_json_atomically(settings_path, data)


def save_store(profile, server: ServerAddress | None, password: str = "") -> None:
    """Settings → Store's Save: the choice in the settings file, a password typed for it
    in the keyring (none typed: the saved one stays)."""
    save_store_choice(profile.settings_path, server)
    if server is not None and password:
        from acai_desktop.core.models.api_keys import SecretStore

        SecretStore(profile.data_dir).set_server_password(server.secret_name, password)
