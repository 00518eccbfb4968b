"""Logins with a password on the throwaway cluster (tests/support/postgres_cluster.py),
whose own superuser needs none: a role, a database it owns, and a pg_hba.conf line that
makes the server ask that role for its password (scram-sha-256) on the cluster's socket."""

from __future__ import annotations

import itertools
import time

import psycopg
from psycopg import sql

from acai_desktop.core.profile.store_choice import ServerAddress
from tests.support.postgres_cluster import PostgresCluster

_numbers = itertools.count(1)


def _admin(cluster: PostgresCluster, statement: sql.Composable | str) -> None:
    with psycopg.connect(cluster.url(), autocommit=True) as connection:
        connection.execute(statement)


def login_with_password(
    cluster: PostgresCluster, password: str, *, database: bool = True
) -> ServerAddress:
    """A new role that must give ``password`` (and, with ``database``, an empty database
    it owns), as the address a user would type (without the password)."""
    number = next(_numbers)
    role, name = f"acai_login_{number}", f"acai_owned_{number}"
    _admin(
        cluster,
        sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
            sql.Identifier(role), sql.Literal(password)
        ),
    )
    if database:
        _admin(
            cluster,
            sql.SQL("CREATE DATABASE {} OWNER {} TEMPLATE template0").format(
                sql.Identifier(name), sql.Identifier(role)
            ),
        )
    hba = cluster.data_dir / "pg_hba.conf"
    # First match wins: this role's line goes before the cluster's "trust" lines.
    hba.write_text(f"local all {role} scram-sha-256\n" + hba.read_text())
    _admin(cluster, "SELECT pg_reload_conf()")
    _until_password_asked(cluster, role)
    return ServerAddress(host=str(cluster.socket_dir), database=name, user=role)


def _until_password_asked(cluster: PostgresCluster, role: str) -> None:
    """The server re-reads pg_hba.conf on SIGHUP, after pg_reload_conf returns: wait for
    the new rule to be in force (a login without the password refused)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            psycopg.connect(host=str(cluster.socket_dir), user=role, dbname="postgres").close()
        except psycopg.OperationalError:
            return
        time.sleep(0.05)
    raise AssertionError(f"the server never started asking {role} for a password")
