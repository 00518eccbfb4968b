"""Each reason a PostgreSQL store can't be opened gets its own message (issue 27 item 4),
against the real throwaway server (tests/support/postgres_cluster.py)."""

from __future__ import annotations

import asyncio
import dataclasses

import psycopg
import pytest

from acai_desktop.core.profile.server_check import ProblemKind, check_server, is_connection_lost
from acai_desktop.core.profile.store_choice import ServerAddress, parse_server_url
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.store_url import open_store
from tests.support.closed_ports import closed_ports
from tests.support.postgres_logins import login_with_password

KNOWN = ["m001_initial", "m002_more"]


@pytest.fixture(scope="module")
def login(postgres_cluster) -> ServerAddress:
    return login_with_password(postgres_cluster, "right horse battery")


def _problem(address: ServerAddress, password: str | None, **options):
    return check_server(address, password, known_migrations=KNOWN, timeout=5, **options)


def test_the_right_password_on_an_empty_database_is_no_problem(login):
    assert _problem(login, "right horse battery") is None


def test_a_wrong_password_says_so(login):
    problem = _problem(login, "wrong")
    assert problem.kind is ProblemKind.WRONG_PASSWORD
    assert "refused the password" in problem.message()
    assert "Settings → Store" in problem.next_step
    assert not problem.clears_by_itself


def test_no_saved_password_asks_for_one(login):
    assert _problem(login, None).kind is ProblemKind.PASSWORD_NEEDED


def test_a_missing_database_is_named(login):
    missing = dataclasses.replace(login, database="no_such_memory")
    problem = _problem(missing, "right horse battery")
    assert problem.kind is ProblemKind.NO_DATABASE
    assert "no_such_memory" in problem.text
    assert f"createdb -O {login.user} no_such_memory" in problem.next_step


def test_a_closed_port_is_unreachable_and_retried():
    with closed_ports(1) as (port,):
        address = ServerAddress(host="127.0.0.1", port=port, database="acai", user="me")
        problem = _problem(address, "secret")
    assert problem.kind is ProblemKind.UNREACHABLE
    assert problem.clears_by_itself
    assert "can't be reached" in problem.text
    assert "Check that it is running" in problem.next_step
    assert "message box" not in problem.message()  # the window says that, not the CLI


def test_a_socket_directory_without_a_server_is_unreachable(tmp_path):
    address = ServerAddress(host=str(tmp_path), database="acai", user="me")
    assert _problem(address, None).kind is ProblemKind.UNREACHABLE


def _address_of(url: str) -> ServerAddress:
    return parse_server_url(url)


async def _made_by_this_version(url: str) -> None:
    store = await open_store(url)  # creates the tables: every migration of this version
    await store.close()


def test_a_database_this_version_made_is_no_problem(postgres_url):
    asyncio.run(_made_by_this_version(postgres_url))
    assert check_server(_address_of(postgres_url), None) is None


def test_an_older_schema_says_how_far_behind(postgres_url):
    asyncio.run(_made_by_this_version(postgres_url))
    # As a later version of the app sees this database: one migration more than it has.
    later_version = [*migrations.recorded_names(postgres=True), "m099_next"]
    problem = check_server(_address_of(postgres_url), None, known_migrations=later_version)
    assert problem.kind is ProblemKind.OLDER_SCHEMA
    assert "older ACAI Desktop (1 update behind: m099_next)" in problem.text
    assert "Update the server's memory" in problem.next_step


def test_a_newer_schema_asks_to_update_the_app(postgres_url):
    asyncio.run(_made_by_this_version(postgres_url))
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO acai_migrations (name, applied_at) VALUES ('m099_from_the_future', '')"
        )
    problem = check_server(_address_of(postgres_url), None)
    assert problem.kind is ProblemKind.NEWER_SCHEMA
    assert "m099_from_the_future" in problem.text
    assert "Update ACAI Desktop" in problem.next_step


def test_a_lost_connection_is_told_from_a_bad_statement(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as bad_statement:
            connection.execute("SELECT no_such_column FROM pg_class")
        assert not is_connection_lost(bad_statement.value)
        with psycopg.connect(postgres_url, autocommit=True) as killer:
            pid = connection.info.backend_pid
            killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(psycopg.OperationalError) as lost:
            connection.execute("SELECT 1")
        assert is_connection_lost(lost.value)


def test_a_store_error_from_a_lost_connection_means_reconnect(postgres_url):
    from acai_desktop.core.errors import StoreError, StoreUnavailableError
    from acai_desktop.core.profile.server_check import ServerProblem, is_store_lost

    with psycopg.connect(postgres_url, autocommit=True) as connection:
        with psycopg.connect(postgres_url, autocommit=True) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", (connection.info.backend_pid,))
        try:
            connection.execute("SELECT 1")
        except psycopg.OperationalError as lost:
            try:
                raise StoreError("The connection to the server was lost.") from lost
            except StoreError as error:
                assert is_store_lost(error)
    assert not is_store_lost(StoreError("The disk is full."))
    wrong = ServerProblem(ProblemKind.WRONG_PASSWORD, "refused", "fix it")
    unreachable = ServerProblem(ProblemKind.UNREACHABLE, "down", "wait")
    assert not is_store_lost(StoreUnavailableError(wrong))
    assert is_store_lost(StoreUnavailableError(unreachable))
