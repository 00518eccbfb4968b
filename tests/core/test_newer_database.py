"""A SQLite profile that a newer ACAI Desktop migrated is refused, not written (issue 39
G9), as a PostgreSQL server's is (core/profile/server_check.py): a real profile file whose
migrations record one this version doesn't know."""

from __future__ import annotations

import sqlite3

import pytest

from acai_desktop import cli
from acai_desktop.core.errors import NewerDatabaseError
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.migration_runner import MIGRATIONS_TABLE
from acai_desktop.core.store.migrations import migrations
from tests.support.aio import run

FUTURE = "m099_from_the_future"


def _migrated_by_a_newer_version(data_dir) -> bytes:
    """A profile made by this version, then updated by a later one; its file's bytes."""
    assert cli.main(["--data-dir", str(data_dir), "memories", "add", "I like green tea."]) == 0
    database = data_dir / "acai.sqlite3"
    with sqlite3.connect(database) as connection:
        connection.execute(
            f'INSERT INTO "{MIGRATIONS_TABLE}" (migration_set, name, applied_at) '
            "VALUES (?, ?, '2031-01-01')",
            [migrations.name, FUTURE],
        )
    connection.close()
    assert not (data_dir / "acai.sqlite3-wal").exists()
    return database.read_bytes()


def test_a_command_refuses_a_profile_a_newer_version_migrated_and_changes_nothing(tmp_path, capsys):
    before = _migrated_by_a_newer_version(tmp_path)
    capsys.readouterr()
    code = cli.main(["--data-dir", str(tmp_path), "memories", "add", "I like black coffee."])
    error = capsys.readouterr().err
    assert code == 2
    assert error.count("\n") == 1 and "Traceback" not in error
    assert "newer ACAI Desktop" in error and FUTURE in error and "Update ACAI Desktop" in error
    assert (tmp_path / "acai.sqlite3").read_bytes() == before  # not a byte written


def test_the_store_refuses_to_open_it(tmp_path):
    _migrated_by_a_newer_version(tmp_path)
    with pytest.raises(NewerDatabaseError, match=FUTURE):
        run(Store.open(tmp_path / "acai.sqlite3"))
