"""The schema of a profile's database, to compare, and the baseline script made from it.

``python -m tests.support.schema_baseline`` writes ``acai_desktop/core/store/
schema_baseline.py`` again from the migrations (all of them, replayed on an empty
database): a fresh profile is then made in one step up to the newest one. Optional
after adding a migration (a fresh profile runs the migrations after the baseline).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.migration_runner import MIGRATIONS_TABLE
from acai_desktop.core.store.migrations import migrations

BASELINE_MODULE = (
    Path(__file__).resolve().parents[2] / "acai_desktop" / "core" / "store" / "schema_baseline.py"
)


def replayed_database() -> Database:
    """An in-memory database made by every migration, one after another."""
    db = Database(sqlite3.connect(":memory:", isolation_level="IMMEDIATE"))
    migrations.apply(db, use_baseline=False)
    return db


def baseline_statements(db: Database) -> list[str]:
    """The statements that make ``db``'s schema, in the order SQLite keeps them: every
    table, index, view and trigger, except what SQLite makes by itself (the indexes of
    UNIQUE constraints, full-text tables' shadow tables) and the migrations' records."""
    shadow = {row[1] for row in db.execute("PRAGMA table_list") if row[2] == "shadow"}
    rows = db.execute("SELECT name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    return [
        sql
        for name, table, sql in rows
        if sql is not None and name not in shadow and table != MIGRATIONS_TABLE
    ]


def schema_of(db: Database) -> dict:
    """Everything that makes a schema: sqlite_master's rows, each table's columns (and
    hidden ones), indexes and foreign keys, and the full-text tables' configuration."""
    master = sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall())
    tables = [row[1] for row in master if row[0] == "table"]
    described = {}
    for table in tables:
        indexes = db.execute(f'PRAGMA index_list("{table}")').fetchall()
        described[table] = {
            "columns": db.execute(f'PRAGMA table_xinfo("{table}")').fetchall(),
            "indexes": sorted(indexes),
            "index_columns": {
                index[1]: db.execute(f'PRAGMA index_xinfo("{index[1]}")').fetchall()
                for index in indexes
            },
            "foreign_keys": db.execute(f'PRAGMA foreign_key_list("{table}")').fetchall(),
        }
        if table.endswith("_config"):  # an FTS5 table's settings (its version)
            described[table]["rows"] = db.execute(f'SELECT * FROM "{table}"').fetchall()
    return {"master": master, "tables": described}


def baseline_module_text(db: Database) -> str:
    names = [migration.name for migration in migrations.applied(db)]
    lines = [
        '"""The schema that the migrations named below leave, one statement each, in the order',
        "SQLite keeps them: a fresh profile's database is made from it in one step",
        "(``migration_runner.py``). Written by ``python -m tests.support.schema_baseline`` from",
        "the migrations, never by hand; ``tests/core/test_schema_baseline.py`` checks that it",
        'makes the schema the migrations make."""',
        "",
        "from acai_desktop.core.store.migration_runner import Baseline",
        "",
        "BASELINE = Baseline(",
        "    migrations=(",
        *[f'        "{name}",' for name in names],
        "    ),",
        "    statements=(",
        *[f"        {_literal(statement)}," for statement in baseline_statements(db)],
        "    ),",
        ")",
        "",
    ]
    return "\n".join(lines)


def _literal(sql: str) -> str:
    if '"""' in sql or "\\" in sql or sql.endswith('"'):
        return repr(sql)
    return f'"""{sql}"""'


if __name__ == "__main__":
    BASELINE_MODULE.write_text(baseline_module_text(replayed_database()), encoding="utf-8")
    print(f"wrote {BASELINE_MODULE}")
