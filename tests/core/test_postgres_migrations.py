"""PostgreSQL runs the one migration history (docs/architecture.md, "Two stores"): a new
database is made from the description once, under the lock, whoever opens it first."""

from __future__ import annotations

import psycopg

from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.postgres.database import PostgresDatabase
from tests.support.aio import run


def test_a_new_database_gets_every_migration_once_and_a_second_open_applies_none(postgres_url):
    db = PostgresDatabase(postgres_url)
    try:
        assert migrations.apply(db) == migrations.names
        assert migrations.pending(db) == []
        assert migrations.apply(db) == []
        tables = set(db.table_names())
    finally:
        db.close()
    assert {"conversations", "messages", "memories", "memory_events", "jobs"} <= tables


def test_it_has_every_sqlite_table_and_column(postgres_url, tmp_path):
    """The same tables with the same columns as SQLite's (PostgreSQL adds its full-text
    columns and tables)."""
    from acai_desktop.core.store.database import connect

    sqlite_db = connect(tmp_path / "acai.sqlite3")
    sqlite_columns = {
        (table, row[1])
        for table in sqlite_db.table_names()
        if not table.startswith(("_sqlite", "sqlite_")) and "_fts" not in table
        for row in sqlite_db.execute(f"PRAGMA table_info({table})")
    }
    sqlite_db.close()
    db = PostgresDatabase(postgres_url)
    try:
        migrations.apply(db)
        pg_columns = set(
            db.connection.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema()"
            ).fetchall()
        )
    finally:
        db.close()
    assert sqlite_columns - pg_columns == set()


def test_two_computers_opening_a_new_database_at_once_migrate_it_once(postgres_url):
    import asyncio

    from acai_desktop.core.store.store_url import open_store

    async def scenario():
        stores = await asyncio.gather(open_store(postgres_url), open_store(postgres_url))
        for store in stores:
            await store.close()

    run(scenario())
    with psycopg.connect(postgres_url) as connection:
        rows = connection.execute("SELECT name FROM acai_migrations ORDER BY name").fetchall()
    assert [row[0] for row in rows] == sorted(migrations.recorded_names(postgres=True))
