"""PostgreSQL's migrations keep step with SQLite's (docs/architecture.md, "Two stores")."""

from __future__ import annotations

import psycopg

from acai_desktop.core.store.migrations import migrations as sqlite_migrations
from acai_desktop.core.store.postgres import migrations as pg
from acai_desktop.core.store.postgres.database import PostgresDatabase
from tests.support.aio import run


def sqlite_names() -> list[str]:
    return [migration.name for migration in sqlite_migrations._migrations]


def test_every_sqlite_migration_after_the_baseline_has_a_postgresql_one_of_the_same_name():
    names = sqlite_names()
    assert pg.BASELINE_COVERS_UP_TO in names
    after_baseline = names[names.index(pg.BASELINE_COVERS_UP_TO) + 1 :]
    missing = [name for name in after_baseline if name not in pg.names()]
    assert not missing, (
        f"SQLite migrations without a PostgreSQL counterpart in "
        f"core/store/postgres/migrations.py: {missing}"
    )
    # ... and in the same order, after the baseline.
    both = [name for name in pg.names() if name not in pg.POSTGRESQL_ONLY]
    assert both == [pg.BASELINE, *after_baseline]


def test_a_new_database_gets_every_migration_once_and_a_second_open_applies_none(postgres_url):
    db = PostgresDatabase(postgres_url)
    try:
        assert pg.migrate(db) == pg.names()
        assert pg.pending(db) == []
        assert pg.migrate(db) == []
        tables = set(db.table_names())
    finally:
        db.close()
    assert {"conversations", "messages", "memories", "memory_events", "jobs"} <= tables


def test_the_baseline_has_every_sqlite_table_and_column(postgres_url, tmp_path):
    """Equal to SQLite's schema at the baseline's migration: the same tables with the
    same columns (PostgreSQL adds its full-text columns and tables)."""
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
        pg.migrate(db)
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
    assert [row[0] for row in rows] == sorted(pg.names())
