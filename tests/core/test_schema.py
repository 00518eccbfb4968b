"""The schema's description (core/store/schema.py) and the one migration history
(core/store/migrations.py) agree, on SQLite and on PostgreSQL: a database made fresh
from the description is the one every released schema upgrades to."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import connect
from acai_desktop.core.store.migration_runner import (
    POSTGRES_BASELINE,
    POSTGRES_BASELINE_COVERS_UP_TO,
)
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.postgres.database import PostgresDatabase
from tests.support.released_postgres import RELEASED_POSTGRES_SCHEMAS, postgres_database_at
from tests.support.schema_compare import (
    normalised,
    postgres_schema_of,
    sqlite_schema_of,
    sqlite_statements,
)

RELEASED_SQLITE = json.loads(
    (Path(__file__).parents[1] / "support" / "data" / "released_sqlite_m017.json").read_text()
)
#: Every released SQLite schema: its newest migration's name (m018 on is this version's).
RELEASED_SQLITE_SCHEMAS = RELEASED_SQLITE["migrations"]


def _fresh_sqlite(tmp_path) -> Database:
    return connect(tmp_path / "fresh.sqlite3")  # the app's open of a fresh profile


def _sqlite_at(last: str) -> Database:
    db = Database(sqlite3.connect(":memory:", isolation_level="IMMEDIATE"))
    after = migrations.names[migrations.names.index(last) + 1 :]
    migrations.apply(db, stop_before=after)
    return db


def test_a_fresh_profile_made_from_the_description_records_every_migration(tmp_path):
    db = _fresh_sqlite(tmp_path)
    try:
        assert [m.name for m in migrations.applied(db)] == migrations.names
        assert migrations.pending(db) == []
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_the_history_gives_sqlite_exactly_the_released_schema():
    """m012 … m017, now written once over both engines, make on SQLite what the
    released SQLite migrations made, statement for statement (their SQL as SQLite keeps
    it, whitespace apart); m018 … m020 change nothing SQLite has (m021 is the first
    since that adds to it: the described schema's test below covers it)."""
    db = _sqlite_at(RELEASED_SQLITE_SCHEMAS[-1])
    replayed = _sqlite_at("m020_postgres_booleans_and_times")
    try:
        released = sorted(normalised(sql) for sql in RELEASED_SQLITE["statements"])
        assert sqlite_statements(db) == released
        assert sqlite_schema_of(replayed) == sqlite_schema_of(db)
    finally:
        db.close()
        replayed.close()


@pytest.mark.parametrize("last", RELEASED_SQLITE_SCHEMAS)
def test_every_released_sqlite_schema_upgrades_to_the_described_one(tmp_path, last):
    old = _sqlite_at(last)
    fresh = _fresh_sqlite(tmp_path)
    try:
        migrations.apply(old)
        assert [m.name for m in migrations.applied(old)] == migrations.names
        assert sqlite_schema_of(old) == sqlite_schema_of(fresh)
    finally:
        old.close()
        fresh.close()


@pytest.fixture
def fresh_postgres(postgres_cluster):
    url = postgres_cluster.create_database()
    db = PostgresDatabase(url)
    migrations.apply(db)
    yield db
    db.close()
    postgres_cluster.drop_database(url)


def test_a_fresh_postgres_database_records_what_every_released_version_reads(fresh_postgres):
    """The baseline's name, then each later migration's: an older version finds the
    names it knows (and refuses the ones it doesn't, server_check)."""
    rows = fresh_postgres.connection.execute("SELECT name FROM acai_migrations").fetchall()
    recorded = sorted(name for (name,) in rows)
    assert recorded == sorted(migrations.recorded_names(postgres=True))
    assert set(RELEASED_POSTGRES_SCHEMAS) <= set(recorded)
    assert POSTGRES_BASELINE in recorded and migrations.names[0] not in recorded
    assert migrations.pending(fresh_postgres) == []
    assert migrations.apply(fresh_postgres) == []


@pytest.mark.parametrize("last", RELEASED_POSTGRES_SCHEMAS)
def test_every_released_postgres_schema_upgrades_to_the_described_one(
    postgres_url, fresh_postgres, last
):
    db = PostgresDatabase(postgres_url)
    try:
        postgres_database_at(db, last)
        upgraded = migrations.apply(db)
        newest = POSTGRES_BASELINE_COVERS_UP_TO if last == POSTGRES_BASELINE else last
        assert upgraded == migrations.names[migrations.names.index(newest) + 1 :]
        assert migrations.pending(db) == []
        assert postgres_schema_of(db) == postgres_schema_of(fresh_postgres)
    finally:
        db.close()
