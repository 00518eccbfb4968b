"""A database's schema as data, to compare two databases made different ways.

SQLite: each table's columns, indexes, foreign keys and CHECK constraints as SQLite
reports them (PRAGMA), and every index, view, trigger and full-text table's SQL with
its whitespace normalised (an ``ALTER TABLE ADD COLUMN`` leaves a table's SQL written
differently from a ``CREATE TABLE`` with the same columns). PostgreSQL: the catalog's
columns (in order, the generated full-text columns last: schema_parts adds them after a
table is made, a later migration's column comes after them), constraints, indexes,
triggers, views, functions and dictionaries.
"""

from __future__ import annotations

import re
import sqlite3

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.migration_runner import MIGRATIONS_TABLE
from acai_desktop.core.store.migrations import migrations


def replayed_sqlite() -> Database:
    """An in-memory SQLite database made by every migration, one after another."""
    db = Database(sqlite3.connect(":memory:", isolation_level="IMMEDIATE"))
    migrations.apply(db, from_description=False)
    return db


def sqlite_statements(db) -> list[str]:
    """The statements SQLite keeps for ``db``'s schema, normalised and sorted: every
    table, index, view and trigger, except what SQLite makes by itself (the indexes of
    UNIQUE constraints, full-text tables' shadow tables) and the migrations' records."""
    shadow = {row[1] for row in db.execute("PRAGMA table_list") if row[2] == "shadow"}
    rows = db.execute("SELECT name, tbl_name, sql FROM sqlite_master").fetchall()
    return sorted(
        normalised(sql)
        for name, table, sql in rows
        if sql is not None and name not in shadow and table != MIGRATIONS_TABLE
    )


def normalised(sql: str) -> str:
    sql = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"\s*([(),;])\s*", r"\1", sql).replace('"', "")


def _checks(sql: str) -> list[str]:
    """The CHECK constraints of a table's (normalised) SQL."""
    found = []
    for match in re.finditer(r"CHECK\(", sql):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(sql)):
            depth += {"(": 1, ")": -1}.get(sql[end], 0)
            if depth == 0:
                break
        found.append(sql[match.start() : end + 1])
    return sorted(found)


def sqlite_schema_of(db) -> dict:
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    schema: dict = {"tables": {}, "sql": {}}
    for kind, name, table, sql in rows:
        if table == MIGRATIONS_TABLE:
            continue
        if sql is not None and (kind != "table" or sql.startswith("CREATE VIRTUAL")):
            schema["sql"][name] = (kind, table, normalised(sql))
        if kind != "table":
            continue
        indexes = db.execute(f'PRAGMA index_list("{name}")').fetchall()
        schema["tables"][name] = {
            "columns": db.execute(f'PRAGMA table_xinfo("{name}")').fetchall(),
            "indexes": sorted(row[1:] for row in indexes),
            "index_columns": {
                index[1]: db.execute(f'PRAGMA index_xinfo("{index[1]}")').fetchall()
                for index in indexes
            },
            "foreign_keys": sorted(
                row[1:] for row in db.execute(f'PRAGMA foreign_key_list("{name}")')
            ),
            "checks": _checks(normalised(sql or "")),
        }
        if name.endswith("_config"):  # an FTS5 table's settings (its version)
            schema["tables"][name]["rows"] = db.execute(f'SELECT * FROM "{name}"').fetchall()
    return schema


_POSTGRES_CATALOG = {
    "columns": """
        SELECT table_name, column_name, data_type, is_nullable, column_default,
               is_identity, identity_generation, generation_expression
        FROM information_schema.columns WHERE table_schema = current_schema()
        ORDER BY table_name, generation_expression IS NOT NULL, ordinal_position""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
        ORDER BY 1, 2""",
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = current_schema() ORDER BY 1, 2""",
    "triggers": """
        SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger
        WHERE NOT tgisinternal ORDER BY 1, 2""",
    "views": """
        SELECT viewname, definition FROM pg_views
        WHERE schemaname = current_schema() ORDER BY 1""",
    "functions": """
        SELECT proname, pg_get_function_identity_arguments(oid), prokind,
               CASE WHEN prokind = 'f' THEN pg_get_functiondef(oid) END
        FROM pg_proc WHERE pronamespace = current_schema()::regnamespace ORDER BY 1, 2""",
    "dictionaries": """
        SELECT dictname FROM pg_ts_dict
        WHERE dictnamespace = current_schema()::regnamespace ORDER BY 1""",
}


def postgres_schema_of(db) -> dict:
    schema = {}
    for part, query in _POSTGRES_CATALOG.items():
        rows = db.connection.execute(query).fetchall()
        schema[part] = [
            tuple(normalised(value) if isinstance(value, str) else value for value in row)
            for row in rows
        ]
    return schema
