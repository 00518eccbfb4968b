"""Named migrations, applied in order, each together with the record that it ran.

The records are the ones sqlite-utils' ``Migrations`` kept, in the same table
(``_sqlite_migrations``: migration set, name, when), so a profile written while
sqlite-utils ran the migrations opens as before, and an earlier version of the app
reads what this one wrote. Running them here, with sqlite3 alone, keeps sqlite-utils
(and click, dateutil, pluggy) out of the window's start (issue 22).

A fresh database is made in one step: the baseline script (``schema_baseline.py``: the
schema that the migrations it names leave, in creation order) runs, those migrations are
recorded as applied, and only the migrations after them run one by one. Replaying all
of them re-parsed the whole schema after every ``ALTER TABLE``, four fifths of a fresh
profile's open (``tests/core/test_schema_baseline.py`` checks that both ways make the
same schema).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from acai_desktop.core.store.connection import Database

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


class Migration(NamedTuple):
    name: str
    fn: Callable[[Database], None]


class AppliedMigration(NamedTuple):
    name: str
    applied_at: str


class Baseline(NamedTuple):
    """The schema the ``migrations`` leave, as the ``statements`` that make it at once."""

    migrations: tuple[str, ...]
    statements: tuple[str, ...]


class Migrations:
    """One set of migrations, registered in order with ``@migrations()``."""

    def __init__(self, name: str, baseline: Baseline | None = None) -> None:
        self.name = name
        self.baseline = baseline
        self._migrations: list[Migration] = []

    def __call__(self) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
        def register(fn: Callable[[Database], None]) -> Callable[[Database], None]:
            if any(migration.name == fn.__name__ for migration in self._migrations):
                raise ValueError(f"migration {fn.__name__} is registered twice")
            self._migrations.append(Migration(fn.__name__, fn))
            return fn

        return register

    @property
    def names(self) -> list[str]:
        return [migration.name for migration in self._migrations]

    def applied(self, db: Database) -> list[AppliedMigration]:
        """This set's migrations recorded in ``db``, in the order they ran (reads only)."""
        if not _table_exists(db, MIGRATIONS_TABLE):
            return []
        rows = db.execute(
            f'SELECT name, applied_at FROM "{MIGRATIONS_TABLE}" '
            "WHERE migration_set = ? ORDER BY rowid",
            [self.name],
        )
        return [AppliedMigration(name, applied_at) for name, applied_at in rows]

    def unknown(self, db: Database) -> list[str]:
        """The migrations recorded in ``db`` that this set doesn't have: a newer version
        of the app applied them (reads only)."""
        known = set(self.names)
        return [m.name for m in self.applied(db) if m.name not in known]

    def pending(self, db: Database) -> list[Migration]:
        """The migrations not yet recorded in ``db``, in order (reads only)."""
        done = {migration.name for migration in self.applied(db)}
        return [migration for migration in self._migrations if migration.name not in done]

    def apply(
        self,
        db: Database,
        *,
        stop_before: str | Iterable[str] | None = None,
        use_baseline: bool = True,
    ) -> None:
        """Apply the pending migrations in order, each in a transaction (a savepoint in
        the caller's) with its record; ``stop_before``: leave that one and the rest.
        An empty database starts from the baseline, unless ``use_baseline`` is False."""
        stop = {stop_before} if isinstance(stop_before, str) else set(stop_before or ())
        fresh = use_baseline and _is_empty(db)
        with db.atomic():
            if not _table_exists(db, MIGRATIONS_TABLE):
                db.execute(_CREATE_TABLE)
                db.execute(_CREATE_INDEX)
        baseline = self.baseline
        if fresh and baseline is not None and not stop.intersection(baseline.migrations):
            with db.atomic():
                for statement in baseline.statements:
                    db.execute(statement)
                for name in baseline.migrations:
                    self._record(db, name)
        for migration in self.pending(db):
            if migration.name in stop:
                return
            with db.atomic():
                migration.fn(db)
                self._record(db, migration.name)

    def _record(self, db: Database, name: str) -> None:
        db.execute(
            f'INSERT INTO "{MIGRATIONS_TABLE}" (migration_set, name, applied_at) VALUES (?, ?, ?)',
            [self.name, name, str(datetime.datetime.now(datetime.UTC))],
        )


def _table_exists(db: Database, name: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]
    ).fetchone()
    return row is not None


def _is_empty(db: Database) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None
