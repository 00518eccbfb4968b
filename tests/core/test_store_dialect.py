"""The operations the two engines spell differently give the same answers on both
(core/store/dialect.py; docs/architecture.md, "Two stores")."""

from __future__ import annotations

import pytest

from tests.support.store_db import store_db


@pytest.fixture
def db(store_location):
    db = store_db(store_location)
    yield db
    db.close()


def one(db, expression: str, params=()):
    return db.execute(f"SELECT {expression}", list(params)).fetchone()[0]


def test_time_arithmetic(db):
    days = db.dialect.days_since("?", "?")
    assert one(db, days, ["2026-12-07T12:00:00+00:00", "2026-12-05T00:00:00+00:00"]) == 2.5
    assert one(db, days, ["2026-12-05T00:00:00+00:00", "2026-12-07T00:00:00+00:00"]) == 0
    assert one(db, db.dialect.days_since("'now'", "?"), ["2026-01-01T00:00:00+00:00"]) >= 0
    epoch_ms = db.dialect.epoch_ms("?")
    assert one(db, epoch_ms, ["1970-01-01T00:00:01.250000+00:00"]) == 1250
    assert one(db, epoch_ms, ["2026-12-07T10:11:12.345678+00:00"]) == 1796638272346


def test_json_fields_strings_and_the_later_value(db):
    assert one(db, db.dialect.json_text("?", "uid"), ['{"uid": "a1", "n": 2}']) == "a1"
    assert one(db, db.dialect.json_text("?", "uid"), ['{"n": 2}']) is None
    assert one(db, db.dialect.json_text("?", "uid"), [None]) is None
    forced = one(db, db.dialect.json_set_true("?", "force"), ['{"document_id": 3}'])
    assert one(db, db.dialect.json_text("?", "force"), [forced]) in ("true", 1)
    assert one(db, db.dialect.contains("?", "?"), ["a 50% cut", "50%"])
    assert not one(db, db.dialect.contains("?", "?"), ["a cut", "_"])
    assert one(db, db.dialect.later("?", "?"), [3, 5]) == 5
    assert one(db, db.dialect.later("?", "?"), ["2026-12-07", "2026-01-01"]) == "2026-12-07"


def test_string_aggregation_and_the_local_day(db):
    joined = db.execute(
        f"SELECT {db.dialect.joined('x')} FROM (SELECT 1 AS x UNION ALL SELECT 22) AS t"
    ).fetchone()[0]
    assert sorted(joined.split(",")) == ["1", "22"]
    day = one(db, db.dialect.local_day("?"), ["2026-12-07T12:00:00+00:00"])
    assert day in ("2026-12-06", "2026-12-07", "2026-12-08")


def test_ids_reserved_for_a_bulk_insert_are_new(db):
    first = db.dialect.reserve_ids(db, "conversations", 3)
    assert len(set(first)) == 3
    assert set(db.dialect.reserve_ids(db, "conversations", 2)).isdisjoint(first) or (
        db.dialect.name == "sqlite"  # SQLite reserves under the caller's write lock
    )


def test_postgresql_has_no_sqlite_functions_left(postgres_url):
    db = store_db(postgres_url)
    try:
        left = db.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = "
            "(SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
            "AND proname IN ('julianday', 'max', 'min', 'instr', 'json_extract', 'json', "
            "'json_set', 'date', 'group_concat')"
        ).fetchall()
    finally:
        db.close()
    assert left == []


def test_an_insert_gives_its_id_by_returning_it_and_is_committed_at_once(db):
    at = "2026-12-07T10:11:12.345678+00:00"
    (project_id,) = db.execute(
        "INSERT INTO projects (name, created_at, updated_at) VALUES ('p', ?, ?) RETURNING id",
        [at, at],
    ).fetchone()
    assert not db.conn.in_transaction  # outside atomic(): its own transaction, committed
    row = db.execute("SELECT name, created_at FROM projects WHERE id = ?", [project_id])
    assert row.fetchone() == ("p", at)  # and a time reads back as it was written
