"""The store's address: parsed from --store, saved without its password (issue 27 item 2)."""

from __future__ import annotations

import json

import keyring.backend
import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.profile.store_choice import (
    ServerAddress,
    load_store_choice,
    parse_server_url,
    save_store_choice,
)


class MemoryKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.saved.get((service, username))

    def set_password(self, service, username, password):
        self.saved[(service, username)] = password

    def delete_password(self, service, username):
        self.saved.pop((service, username), None)


def test_a_url_with_host_port_user_password_and_database():
    address = parse_server_url("postgresql://ann:s%40cret@db.example.org:6543/acai")
    assert address == ServerAddress(
        host="db.example.org", port=6543, user="ann", database="acai", password="s@cret"
    )
    assert "s@cret" not in address.url() and "cret" not in address.describe()


def test_a_socket_directory_in_the_query():
    address = parse_server_url("postgres://ann@/acai?host=%2Frun%2Fpostgresql")
    assert (address.host, address.port, address.database) == ("/run/postgresql", 5432, "acai")
    assert parse_server_url(address.url()) == address


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mysql://ann@host/acai", "takes a PostgreSQL URL"),
        ("postgresql://ann@host/", "names no database"),
        ("postgresql://ann@/acai", "names no server"),
        ("postgresql://host/acai", "names no user"),
        ("postgresql://ann@host:99999/acai", "port"),
        ("postgresql://ann@host/acai?sslmode=disable", "does not use"),
    ],
)
def test_a_bad_url_is_one_clear_line(url, words):
    with pytest.raises(InvalidInputError, match=words):
        parse_server_url(url)


def test_the_choice_is_saved_without_the_password(tmp_path):
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"model": {"provider": "openai"}}))
    address = parse_server_url("postgresql://ann:hunter22@db.example.org/acai")
    keys = MemoryKeyring()
    secrets = SecretStore(tmp_path, backend=keys)

    save_store_choice(settings, address)
    secrets.set_server_password(address.secret_name, address.password)

    text = settings.read_text()
    assert "hunter22" not in text
    assert json.loads(text)["model"] == {"provider": "openai"}  # other keys kept
    assert load_store_choice(settings) == address.without_password()
    assert secrets.get_server_password(address.secret_name) == "hunter22"
    assert not (tmp_path / "secrets.json").exists()  # in the keyring, not a file

    save_store_choice(settings, None)
    assert load_store_choice(settings) is None


def test_a_password_is_kept_as_typed(tmp_path):
    secrets = SecretStore(tmp_path, backend=MemoryKeyring())
    secrets.set_server_password("postgresql://ann@db:5432/acai", "  spaced out ")
    assert secrets.get_server_password("postgresql://ann@db:5432/acai") == "  spaced out "
