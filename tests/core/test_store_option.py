"""``--store`` puts a command's memory on a PostgreSQL server, for that run only, and
never on this computer instead (issue 27 item 2)."""

from __future__ import annotations

import json

import psycopg

from acai_desktop import cli
from acai_desktop.core.profile.store_choice import parse_server_url, save_store_choice
from tests.support.closed_ports import closed_ports


def test_store_url_puts_the_memory_on_the_server(tmp_path, postgres_url, capsys):
    argv = ["--data-dir", str(tmp_path), "--store", postgres_url, "conversations", "list"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT count(*) FROM acai_migrations").fetchone()[0] >= 1
    assert not (tmp_path / "acai.sqlite3").exists()  # nothing written on this computer
    settings = tmp_path / "settings.json"
    assert not settings.exists() or "store" not in json.loads(settings.read_text())


def test_the_saved_server_is_used_and_local_overrides_it(tmp_path, postgres_url, capsys):
    save_store_choice(tmp_path / "settings.json", parse_server_url(postgres_url))
    assert cli.main(["--data-dir", str(tmp_path), "conversations", "list"]) == 0
    assert not (tmp_path / "acai.sqlite3").exists()
    assert cli.main(["--data-dir", str(tmp_path), "--store", "local", "conversations", "list"]) == 0
    assert (tmp_path / "acai.sqlite3").exists()


def test_an_unreachable_server_is_an_error_not_a_local_memory(tmp_path, capsys):
    with closed_ports(1) as (port,):
        url = f"postgresql://me@127.0.0.1:{port}/acai"
        code = cli.main(["--data-dir", str(tmp_path), "--store", url, "conversations", "list"])
    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("acai-desktop: error:") and error.count("\n") == 1
    assert not (tmp_path / "acai.sqlite3").exists()


def test_a_bad_store_url_is_one_line(tmp_path, capsys):
    code = cli.main(["--data-dir", str(tmp_path), "--store", "mysql://x@y/z", "memories", "list"])
    assert code == 2
    assert "takes a PostgreSQL URL" in capsys.readouterr().err


def test_a_wrong_password_is_its_own_one_line_error(tmp_path, postgres_cluster, capsys):
    from tests.support.postgres_logins import login_with_password

    login = login_with_password(postgres_cluster, "the right one")
    url = login.url(password="not it")
    code = cli.main(["--data-dir", str(tmp_path), "--store", url, "conversations", "list"])
    assert code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "refused the password" in error
    assert "not it" not in error  # the password is never printed


def test_a_schema_newer_than_this_version_is_not_opened(tmp_path, postgres_url, capsys):
    argv = ["--data-dir", str(tmp_path), "--store", postgres_url, "conversations", "list"]
    assert cli.main(argv) == 0  # made by this version
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO acai_migrations (name, applied_at) VALUES ('m099_from_the_future', '')"
        )
    capsys.readouterr()
    assert cli.main(argv) == 2
    error = capsys.readouterr().err
    assert "newer ACAI Desktop" in error and "m099_from_the_future" in error
