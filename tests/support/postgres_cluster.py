"""A throwaway PostgreSQL cluster for the tests: initdb in a temp dir, a server that
listens only on a Unix socket in that dir, removed at the end (issue 27 item 5).

The server binaries come from the machine's PostgreSQL packages (`scripts/install-system-
deps` installs Debian's). PostgreSQL refuses to run as root, so when the tests run as root
(CI does) initdb and the server run as an unprivileged user that owns the temp dir; the
tests, as root, connect through the socket with ``trust`` authentication (nobody else can
reach a socket in a private temp dir).

Without the binaries the PostgreSQL tests *fail* (never skip), naming the command that
installs them: the store suite runs over both stores or it has not run.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

#: Where to look after PATH: an explicit directory, then the layouts Debian/Ubuntu
#: (``/usr/lib/postgresql/<major>/bin``) and the PGDG RPMs (``/usr/pgsql-<major>/bin``)
#: install to, newest major first.
BINDIR_VARIABLE = "ACAI_PG_BINDIR"
_PACKAGED_BINDIRS = ("/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin")
#: PostgreSQL 15 or newer (issue 27).
MINIMUM_MAJOR = 15
#: The superuser initdb creates; the tests connect as it.
SUPERUSER = "acai_test"
#: Accounts the server may run as when the tests run as root, first found wins.
_UNPRIVILEGED_USERS = ("postgres", "nobody")

MISSING_SERVER = (
    "PostgreSQL {minimum}+ server binaries (initdb, pg_ctl, postgres) were not found on PATH, "
    "in ${variable} or in the distribution's PostgreSQL directory; run "
    "scripts/install-system-deps to install them"
)


class PostgresUnavailable(RuntimeError):
    """The machine has no PostgreSQL server to start; the message says how to fix it."""


def _major_of(bindir: Path) -> int:
    out = subprocess.run(
        [str(bindir / "pg_ctl"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    # "pg_ctl (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)"
    return int(out.split(")")[1].split()[0].split(".")[0])


def _candidate_bindirs() -> list[Path]:
    candidates: list[Path] = []
    if os.environ.get(BINDIR_VARIABLE):
        candidates.append(Path(os.environ[BINDIR_VARIABLE]))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    pg_config = shutil.which("pg_config")
    if pg_config:
        result = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        if result.returncode == 0 and result.stdout.strip():
            candidates.append(Path(result.stdout.strip()))
    packaged = [Path(found) for pattern in _PACKAGED_BINDIRS for found in glob.glob(pattern)]
    candidates.extend(sorted(packaged, key=_sortable_major, reverse=True))
    return candidates


def _sortable_major(bindir: Path) -> int:
    digits = "".join(ch for ch in bindir.parent.name if ch.isdigit())
    return int(digits or 0)


def find_server_bindir() -> Path:
    """The directory holding initdb, pg_ctl and postgres (PostgreSQL 15+), or
    :class:`PostgresUnavailable` naming scripts/install-system-deps."""
    for bindir in _candidate_bindirs():
        if not all((bindir / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            continue
        try:
            if _major_of(bindir) >= MINIMUM_MAJOR:
                return bindir
        except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
            continue
    raise PostgresUnavailable(
        MISSING_SERVER.format(minimum=MINIMUM_MAJOR, variable=BINDIR_VARIABLE)
    )


def _unprivileged_account() -> pwd.struct_passwd | None:
    """The account to run the server as: None when we are not root (we run it)."""
    if os.geteuid() != 0:
        return None
    for name in _UNPRIVILEGED_USERS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresUnavailable(
        "the tests run as root and PostgreSQL refuses to; no unprivileged account "
        f"({', '.join(_UNPRIVILEGED_USERS)}) exists to run it as"
    )


@dataclass
class PostgresCluster:
    """One running throwaway cluster. Use as a context manager, or call start/stop."""

    bindir: Path = field(default_factory=find_server_bindir)
    root: Path | None = None
    _account: pwd.struct_passwd | None = None
    _names: itertools.count = field(default_factory=lambda: itertools.count(1))

    @property
    def data_dir(self) -> Path:
        assert self.root is not None
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        assert self.root is not None
        return self.root / "socket"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._account is not None:
            command = ["runuser", "-u", self._account.pw_name, "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
            )
        return result

    def start(self) -> PostgresCluster:
        self._account = _unprivileged_account()
        self.root = Path(tempfile.mkdtemp(prefix="acai-pg-"))
        self.socket_dir.mkdir()
        if self._account is not None:
            for path in (self.root, self.socket_dir):
                os.chown(path, self._account.pw_uid, self._account.pw_gid)
        try:
            self._run(
                "initdb",
                "-D",
                str(self.data_dir),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            )
            # No TCP at all; fsync off: a throwaway cluster need not survive a crash.
            options = (
                f"-c listen_addresses='' -k {self.socket_dir} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=60 -c shared_buffers=32MB"
            )
            self._run(
                "pg_ctl",
                "start",
                "-w",
                "-D",
                str(self.data_dir),
                "-l",
                str(self.root / "server.log"),
                "-o",
                options,
            )
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def stop(self) -> None:
        if self.root is None:
            return
        try:
            self._run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", str(self.data_dir))
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for ``database`` through the cluster's socket."""
        host = quote(str(self.socket_dir), safe="")
        return f"postgresql://{SUPERUSER}@/{database}?host={host}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(sql)

    def create_database(self, prefix: str = "acai") -> str:
        """A new empty database; returns its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.split("/")[-1].split("?")[0]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
