"""The throwaway cluster's server stopped and started again (its data kept), for tests
of what the app does while the memory's server is down."""

from __future__ import annotations

from tests.support.postgres_cluster import PostgresCluster


def stop_server(cluster: PostgresCluster) -> None:
    cluster._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(cluster.data_dir))


def start_server(cluster: PostgresCluster) -> None:
    """Start it again with the options it last ran with (``postmaster.opts``: pg_ctl
    restart reads them, and starts a stopped server)."""
    assert cluster.root is not None
    log = str(cluster.root / "server.log")
    cluster._run("pg_ctl", "restart", "-w", "-D", str(cluster.data_dir), "-l", log)
