"""The throwaway PostgreSQL cluster the store suite runs on (tests/support/postgres_cluster.py)."""

from __future__ import annotations

import os

import psycopg
import pytest

from tests.support import postgres_cluster as cluster_module
from tests.support.postgres_cluster import PostgresCluster, PostgresUnavailable


def test_each_test_gets_its_own_empty_database(postgres_url, postgres_cluster):
    with psycopg.connect(postgres_url) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
        connection.execute("CREATE TABLE marker (id integer)")
    other = postgres_cluster.create_database()
    try:
        with psycopg.connect(other) as connection:
            assert connection.execute("SELECT to_regclass('public.marker')").fetchone() == (None,)
    finally:
        postgres_cluster.drop_database(other)


def test_the_server_listens_on_a_socket_only_and_runs_unprivileged(postgres_url):
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SHOW listen_addresses").fetchone() == ("",)
        assert int(connection.execute("SHOW server_version_num").fetchone()[0]) >= 150000
        data_dir = connection.execute("SHOW data_directory").fetchone()[0]
    # The data dir belongs to whoever runs the server: never root.
    assert os.stat(data_dir).st_uid != 0


def test_a_stopped_cluster_leaves_nothing_behind():
    cluster = PostgresCluster().start()
    root = cluster.root
    assert root is not None and (root / "data" / "PG_VERSION").exists()
    cluster.stop()
    assert not root.exists()


def test_without_server_binaries_the_message_names_the_install_script(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv(cluster_module.BINDIR_VARIABLE, raising=False)
    monkeypatch.setattr(cluster_module, "_PACKAGED_BINDIRS", ())
    with pytest.raises(PostgresUnavailable, match="scripts/install-system-deps"):
        cluster_module.find_server_bindir()
