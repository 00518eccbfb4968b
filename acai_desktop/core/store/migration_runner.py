"""One migration history, applied in order on either engine, each step with its record.

The records stay where each engine's released versions look for them, so an older
version of the app still reads what this one wrote (and refuses a newer database):

* SQLite: ``_sqlite_migrations`` (migration set, name, when), the table sqlite-utils'
  ``Migrations`` kept. Each migration runs in a savepoint of the caller's transaction
  (``database.connect`` holds the write lock). Running them with sqlite3 alone keeps
  sqlite-utils out of the window's start (issue 22).
* PostgreSQL: ``acai_migrations`` (name, when). Every pending migration runs in one
  transaction under an advisory lock, so two computers opening an older database at
  once apply each migration once. PostgreSQL databases began at ``baseline_m011``,
  recorded for the migrations up to m011 (which only SQLite's profiles ran one by one).

A fresh database is made in one step from the schema's description (``schema.py``) and
every migration is recorded as applied; replaying them re-parsed SQLite's whole schema
after every ``ALTER TABLE``, four fifths of a fresh profile's open.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from acai_desktop.core.clock import now_iso
from acai_desktop.core.store.dialect import POSTGRESQL

MIGRATIONS_TABLE = "_sqlite_migrations"
# Word for word as sqlite-utils' Migrations.ensure_migrations_table creates them.
_CREATE_TABLE = (
    f'CREATE TABLE "{MIGRATIONS_TABLE}" (\n   "id" INTEGER PRIMARY KEY,\n'
    '   "migration_set" TEXT,\n   "name" TEXT,\n   "applied_at" TEXT\n)'
)
_CREATE_INDEX = (
    f'CREATE UNIQUE INDEX "idx_{MIGRATIONS_TABLE}_migration_set_name"\n'
    f'    ON "{MIGRATIONS_TABLE}" ("migration_set", "name")'
)
POSTGRES_MIGRATIONS_TABLE = "acai_migrations"
#: The first record of every PostgreSQL database: the migrations up to this one.
POSTGRES_BASELINE = "baseline_m011"
POSTGRES_BASELINE_COVERS_UP_TO = "m011_chat_titles_pins_and_instructions"


def is_postgres(db) -> bool:
    """Whether the connection ``db`` is PostgreSQL's (its dialect says, store/dialect.py)."""
    return db.dialect.name == POSTGRESQL


#: Taken (transaction-scoped) while migrating PostgreSQL; any fixed number that is ours.
_MIGRATION_LOCK = 0x41434149  # "ACAI"


class Migration(NamedTuple):
    name: str
    fn: Callable


class AppliedMigration(NamedTuple):
    name: str
    applied_at: str


class Migrations:
    """The history, registered in order with ``@migrations()``; ``create_schema`` makes
    the schema all of them leave in an empty database at once."""

    def __init__(self, name: str, create_schema: Callable | None = None) -> None:
        self.name = name
        self.create_schema = create_schema
        self._migrations: list[Migration] = []

    def __call__(self) -> Callable[[Callable], Callable]:
        def register(fn: Callable) -> Callable:
            if any(migration.name == fn.__name__ for migration in self._migrations):
                raise ValueError(f"migration {fn.__name__} is registered twice")
            self._migrations.append(Migration(fn.__name__, fn))
            return fn

        return register

    @property
    def names(self) -> list[str]:
        return [migration.name for migration in self._migrations]

    def recorded_names(self, *, postgres: bool) -> list[str]:
        """The names an up-to-date database records on the engine: what an older
        version of the app compares with the names it knows."""
        if postgres:
            after = self.names.index(POSTGRES_BASELINE_COVERS_UP_TO) + 1
            return [POSTGRES_BASELINE, *self.names[after:]]
        return self.names

    def applied(self, db) -> list[AppliedMigration]:
        """This history's migrations recorded in ``db``, in the order they ran (reads
        only); PostgreSQL's baseline stands for the migrations it covers."""
        if not is_postgres(db):
            if not _sqlite_table_exists(db, MIGRATIONS_TABLE):
                return []
            rows = db.execute(
                f'SELECT name, applied_at FROM "{MIGRATIONS_TABLE}" '
                "WHERE migration_set = ? ORDER BY rowid",
                [self.name],
            ).fetchall()
            return [AppliedMigration(name, at) for name, at in rows]
        if not _postgres_table_exists(db):
            return []
        rows = db.connection.execute(
            f"SELECT name, applied_at FROM {POSTGRES_MIGRATIONS_TABLE} ORDER BY applied_at, name"
        ).fetchall()
        applied = []
        for name, at in rows:
            if name == POSTGRES_BASELINE:
                covered = self.names[: self.names.index(POSTGRES_BASELINE_COVERS_UP_TO) + 1]
                applied += [AppliedMigration(each, at) for each in covered]
            else:
                applied.append(AppliedMigration(name, at))
        return applied

    def unknown(self, db) -> list[str]:
        """The migrations recorded in ``db`` that this history doesn't have: a newer
        version of the app applied them (reads only)."""
        known = set(self.names)
        return [m.name for m in self.applied(db) if m.name not in known]

    def pending(self, db) -> list[Migration]:
        """The migrations not yet recorded in ``db``, in order (reads only)."""
        done = {migration.name for migration in self.applied(db)}
        return [migration for migration in self._migrations if migration.name not in done]

    def apply(
        self,
        db,
        *,
        stop_before: str | Iterable[str] | None = None,
        from_description: bool = True,
    ) -> list[str]:
        """Apply the pending migrations in order, each with its record; ``stop_before``:
        leave that one and the rest. An empty database is made from the description
        (unless ``from_description`` is False: then SQLite replays every migration).
        Returns the names applied."""
        stop = {stop_before} if isinstance(stop_before, str) else set(stop_before or ())
        postgres = is_postgres(db)
        if postgres and not self.pending(db):
            return []
        with _postgres_session(db) if postgres else _sqlite_session(db):
            todo = self.pending(db)  # again, under the lock: another computer may have done them
            if self.create_schema and from_description and not stop and _is_empty(db):
                self.create_schema(db)
                for name in self.recorded_names(postgres=postgres):
                    self._record(db, name)
                return [migration.name for migration in todo]
            if postgres and POSTGRES_BASELINE_COVERS_UP_TO in {m.name for m in todo}:
                raise ValueError(
                    "a PostgreSQL database begins at its baseline: made from the description"
                )
            applied = []
            for migration in todo:
                if migration.name in stop:
                    break
                with contextlib.nullcontext() if postgres else db.atomic():
                    migration.fn(db)
                    self._record(db, migration.name)
                applied.append(migration.name)
        return applied

    def _record(self, db, name: str) -> None:
        if is_postgres(db):
            db.connection.execute(
                f"INSERT INTO {POSTGRES_MIGRATIONS_TABLE} (name, applied_at) VALUES (%s, %s)",
                [name, now_iso()],
            )
            return
        db.execute(
            f'INSERT INTO "{MIGRATIONS_TABLE}" (migration_set, name, applied_at) VALUES (?, ?, ?)',
            [self.name, name, str(datetime.datetime.now(datetime.UTC))],  # as sqlite-utils wrote
        )


@contextlib.contextmanager
def _sqlite_session(db) -> Iterator[None]:
    with db.atomic():
        if not _sqlite_table_exists(db, MIGRATIONS_TABLE):
            db.execute(_CREATE_TABLE)
            db.execute(_CREATE_INDEX)
    yield


@contextlib.contextmanager
def _postgres_session(db) -> Iterator[None]:
    with db.connection.transaction():
        db.connection.execute("SELECT pg_advisory_xact_lock(%s)", [_MIGRATION_LOCK])
        db.connection.execute(
            f"CREATE TABLE IF NOT EXISTS {POSTGRES_MIGRATIONS_TABLE} "
            "(name text PRIMARY KEY, applied_at text NOT NULL)"
        )
        yield


def _is_empty(db) -> bool:
    """No migration recorded, no table but the records' (which the session made)."""
    if is_postgres(db):
        query = f"SELECT 1 FROM {POSTGRES_MIGRATIONS_TABLE} LIMIT 1"
        return db.connection.execute(query).fetchone() is None
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE tbl_name != ? LIMIT 1", [MIGRATIONS_TABLE]
    ).fetchone()
    return row is None


def _sqlite_table_exists(db, name: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]
    ).fetchone()
    return row is not None


def _postgres_table_exists(db) -> bool:
    row = db.connection.execute("SELECT to_regclass(%s)", [POSTGRES_MIGRATIONS_TABLE]).fetchone()
    return row[0] is not None
