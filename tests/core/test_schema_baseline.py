"""A fresh profile's database is made in one step from the baseline script; the schema
is the one that replaying every migration makes (core/store/migration_runner.py)."""

from __future__ import annotations

import sqlite3

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import connect
from acai_desktop.core.store.migration_runner import Migrations
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.schema_baseline import BASELINE
from tests.support.schema_baseline import baseline_statements, replayed_database, schema_of


def test_a_fresh_profile_from_the_baseline_has_the_schema_every_migration_makes(tmp_path):
    opened = connect(tmp_path / "acai.sqlite3")  # the app's open of a fresh profile
    replayed = replayed_database()
    try:
        assert schema_of(opened) == schema_of(replayed)
        assert [m.name for m in migrations.applied(opened)] == migrations.names
        assert migrations.pending(opened) == []
        assert opened.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        opened.close()
        replayed.close()


def test_the_baseline_is_the_first_migrations_in_order_and_made_from_them():
    assert BASELINE.migrations, "the baseline names the migrations it stands for"
    covered = len(BASELINE.migrations)
    assert list(BASELINE.migrations) == migrations.names[:covered]
    # Its statements are those of a database made by exactly those migrations.
    db = Database(sqlite3.connect(":memory:"))
    migrations.apply(db, stop_before=migrations.names[covered:], use_baseline=False)
    try:
        assert baseline_statements(db) == list(BASELINE.statements)
    finally:
        db.close()


def test_a_fresh_database_runs_the_migrations_after_the_baseline_one_by_one():
    later = Migrations("acai_desktop", BASELINE)
    for name in BASELINE.migrations:  # stand-ins: the baseline makes their schema
        later()(_named(name))
    ran = []

    def m999_later(db):
        ran.append("m999_later")
        db.execute("CREATE TABLE later_table (id INTEGER PRIMARY KEY)")

    later()(m999_later)
    db = Database(sqlite3.connect(":memory:"))
    try:
        later.apply(db)
        assert ran == ["m999_later"]
        assert [m.name for m in later.applied(db)] == [*BASELINE.migrations, "m999_later"]
        assert "later_table" in db.table_names() and "memories_fts" in db.table_names()
        later.apply(db)  # nothing left to run
        assert ran == ["m999_later"]
    finally:
        db.close()


def _named(name):
    def migration(db):
        raise AssertionError(f"{name} replayed on a fresh database")

    migration.__name__ = name
    return migration
