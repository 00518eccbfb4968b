"""Why a PostgreSQL store can't be used, in words the user can act on (issue 27 item 4).

:func:`check_server` connects the way the store will and sorts a failure into one
:class:`ServerProblem`: the server can't be reached, it wants a password, the password
(or user) is wrong, it refuses this user, the database is missing, or the database's
schema is older or newer than this ACAI's. Each kind has its own message and next step;
only "can't be reached" clears by itself, so only it is retried on a timer
(:class:`~acai_desktop.core.profile.reconnect.Backoff`).

How it tells them apart without reading the server's words (which are translated):
libpq gives no SQLSTATE for a refused connection (psycopg's ``error.sqlstate`` is None
for 28P01, 28000 and 3D000 alike), so the check asks structured questions instead —
does a server answer at the address and take connections (``PQping``), did the server
ask for a password libpq lacked (``PQconnectionNeedsPassword``), can the same user
reach the maintenance database, and is the database in ``pg_database``. Errors on an
open connection do carry a SQLSTATE: :func:`is_connection_lost` sorts those (class 08,
57P01–57P03).
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Collection
from dataclasses import dataclass

from acai_desktop.core.profile.store_choice import ServerAddress

log = logging.getLogger(__name__)

#: Seconds to wait for a server before calling it unreachable (a firewall that drops
#: packets answers nothing at all).
CONNECT_TIMEOUT = 5.0
#: PostgreSQL 15 or newer (issue 27).
MINIMUM_SERVER_VERSION = 150000
#: Databases every cluster has, used to tell a missing database from a refused user.
MAINTENANCE_DATABASES = ("postgres", "template1")
#: Errors on an open connection that mean "the server went away", not "our bug":
#: connection exceptions (class 08) and the server shutting down or starting up.
LOST_CONNECTION_STATES = ("57P01", "57P02", "57P03")


class ProblemKind(enum.Enum):
    UNREACHABLE = "unreachable"
    NOT_READY = "not-ready"
    PASSWORD_NEEDED = "password-needed"
    WRONG_PASSWORD = "wrong-password"
    REFUSED = "refused"
    NO_DATABASE = "no-database"
    OLD_SERVER = "old-server"
    OLDER_SCHEMA = "older-schema"
    NEWER_SCHEMA = "newer-schema"


@dataclass(frozen=True)
class ServerProblem:
    kind: ProblemKind
    text: str
    next_step: str

    @property
    def clears_by_itself(self) -> bool:
        """Worth trying again on a timer: only a server that did not answer, or not yet."""
        return self.kind in (ProblemKind.UNREACHABLE, ProblemKind.NOT_READY)

    def message(self) -> str:
        return f"{self.text} {self.next_step}"


def check_server(
    address: ServerAddress,
    password: str | None,
    *,
    known_migrations: Collection[str] | None = None,
    timeout: float = CONNECT_TIMEOUT,
) -> ServerProblem | None:
    """None when the store can open ``address`` (blocking: run it off the UI thread).
    ``known_migrations`` are this version's PostgreSQL migrations (None: the store's)."""
    import psycopg

    where = address.describe()
    try:
        connection = _connect(address, password, address.database, timeout)
    except psycopg.OperationalError as error:
        return _why_refused(address, password, error, timeout)
    with connection:
        if connection.info.server_version < MINIMUM_SERVER_VERSION:
            found = connection.info.server_version // 10000
            return ServerProblem(
                ProblemKind.OLD_SERVER,
                f"The server holding {where} runs PostgreSQL {found}; ACAI needs 15 or newer.",
                "Upgrade the server, or choose another one in Settings → Store.",
            )
        applied = _applied_migrations(connection)
    if applied is None:
        return None  # an empty database: the store creates its tables when it opens
    known = _known_migrations() if known_migrations is None else known_migrations
    newer = sorted(set(applied) - set(known))
    if newer:
        return ServerProblem(
            ProblemKind.NEWER_SCHEMA,
            f"{where.capitalize()} was updated by a newer ACAI Desktop (it has "
            f"{', '.join(newer)}, which this version does not know).",
            "Update ACAI Desktop on this computer to use it; nothing was changed.",
        )
    missing = [name for name in known if name not in set(applied)]
    if missing:
        count = f"{len(missing)} update{'s' if len(missing) != 1 else ''} behind"
        return ServerProblem(
            ProblemKind.OLDER_SCHEMA,
            f"{where.capitalize()} was made by an older ACAI Desktop ({count}: "
            f"{', '.join(missing)}).",
            "Update it with “Update the server's memory” once every computer using it "
            "runs this version (an older version can't read it afterwards).",
        )
    return None


def _connect(address: ServerAddress, password: str | None, database: str, timeout: float):
    import psycopg

    return psycopg.connect(
        host=address.host,
        port=address.port,
        dbname=database,
        user=address.user,
        password=password or None,
        connect_timeout=max(1, round(timeout)),
        autocommit=True,
    )


def _why_refused(
    address: ServerAddress, password: str | None, error: Exception, timeout: float
) -> ServerProblem:
    import psycopg
    from psycopg import pq

    where = address.describe()
    pgconn = getattr(error, "pgconn", None)
    answer = _ping(address, timeout)
    if answer == pq.Ping.REJECT:
        return ServerProblem(
            ProblemKind.NOT_READY,
            f"The PostgreSQL server holding your memory is not taking connections yet "
            f"({where}: starting up, shutting down or recovering).",
            "Wait a moment: it should take connections again shortly.",
        )
    if answer != pq.Ping.OK:
        return ServerProblem(
            ProblemKind.UNREACHABLE,
            f"The PostgreSQL server holding your memory can't be reached ({where}).",
            "Check that it is running and that this computer can reach it.",
        )
    if pgconn is not None and pgconn.needs_password and not password:
        return ServerProblem(
            ProblemKind.PASSWORD_NEEDED,
            f"The server asks for a password for {where}, and none is saved.",
            "Enter it in Settings → Store (it is kept in your system keyring).",
        )
    for maintenance in MAINTENANCE_DATABASES:
        try:
            connection = _connect(address, password, maintenance, timeout)
        except psycopg.OperationalError:
            continue
        with connection:
            exists = connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (address.database,)
            ).fetchone()
        if exists is None:
            return ServerProblem(
                ProblemKind.NO_DATABASE,
                f"The server has no database named “{address.database}”.",
                f"Create it (createdb -O {address.user} {address.database}) or correct the "
                "name in Settings → Store.",
            )
        break  # the database is there but refuses this user
    else:
        if pgconn is not None and pgconn.used_password:
            return ServerProblem(
                ProblemKind.WRONG_PASSWORD,
                f"The server refused the password for user {address.user} ({where}).",
                "Correct the user or password in Settings → Store.",
            )
    return ServerProblem(
        ProblemKind.REFUSED,
        f"The server refuses user {address.user} for {where} from this computer.",
        "Ask its administrator to allow it (GRANT CONNECT, pg_hba.conf), or choose "
        "another user in Settings → Store.",
    )


def _ping(address: ServerAddress, timeout: float):
    """libpq's PQping: whether a server answers at the address and accepts connections
    (REJECT: it answers, but is starting up, shutting down or recovering), without
    logging in."""
    from psycopg import conninfo, pq

    info = conninfo.make_conninfo(
        host=address.host,
        port=address.port,
        dbname=address.database,
        user=address.user,
        connect_timeout=max(1, round(timeout)),
    )
    return pq.PGconn.ping(info.encode())


def _applied_migrations(connection) -> list[str] | None:
    """The migrations the database records; None when it has no ACAI tables yet."""
    if connection.execute("SELECT to_regclass('acai_migrations')").fetchone()[0] is None:
        return None
    return [name for (name,) in connection.execute("SELECT name FROM acai_migrations")]


def _known_migrations() -> list[str]:
    from acai_desktop.core.store.migrations import migrations

    return migrations.recorded_names(postgres=True)


def is_connection_lost(error: BaseException) -> bool:
    """An error of an open PostgreSQL connection that means the server went away (the
    app reconnects), rather than a fault in the statement (our bug: raised)."""
    with contextlib.suppress(ImportError):
        import psycopg

        if isinstance(error, psycopg.OperationalError):
            state = error.sqlstate
            return state is None or state.startswith("08") or state in LOST_CONNECTION_STATES
    return False


def is_store_lost(error: BaseException) -> bool:
    """The store's error (a ``StoreError`` raised from psycopg's) means the server went
    away or can't be used for now: reconnecting, with the banner, is the answer."""
    from acai_desktop.core.errors import StoreUnavailableError

    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, StoreUnavailableError):
            return seen.problem.clears_by_itself
        if is_connection_lost(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
