"""API keys: keyring first, a 0600 file with a warning when there is no keyring."""

from __future__ import annotations

import stat

import keyring.errors
from keyring.backend import KeyringBackend
from keyring.backends import fail

from acai_desktop.core.models.api_keys import SERVICE, SecretStore


class MemoryKeyring(KeyringBackend):
    """A working keyring held in a dict (the real one must not be touched by tests)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.entries.get((service, username))

    def set_password(self, service, username, password):
        self.entries[(service, username)] = password

    def delete_password(self, service, username):
        if (service, username) not in self.entries:
            raise keyring.errors.PasswordDeleteError("absent")
        del self.entries[(service, username)]


class LockedKeyring(MemoryKeyring):
    def get_password(self, service, username):
        raise keyring.errors.KeyringLocked("locked")

    def set_password(self, service, username, password):
        raise keyring.errors.KeyringLocked("locked")


NO_ENV: dict[str, str] = {}


def test_keys_go_to_the_keyring_and_nowhere_else(tmp_path):
    backend = MemoryKeyring()
    store = SecretStore(tmp_path, backend=backend)
    store.set_api_key("openai", "sk-abc")
    assert backend.entries == {(SERVICE, "openai"): "sk-abc"}
    assert store.get_api_key("openai", environ=NO_ENV) == "sk-abc"
    assert store.uses_keyring and store.warning is None
    assert list(tmp_path.iterdir()) == []
    store.delete_api_key("openai")
    assert store.get_api_key("openai", environ=NO_ENV) is None


def test_without_a_keyring_the_key_lives_in_a_private_file_with_a_warning(tmp_path):
    store = SecretStore(tmp_path, backend=fail.Keyring())
    assert not store.uses_keyring
    store.set_api_key("openai", "sk-file")
    assert stat.S_IMODE(store.fallback_path.stat().st_mode) == 0o600
    assert "sk-file" in store.fallback_path.read_text()
    assert str(store.fallback_path) in store.warning
    reopened = SecretStore(tmp_path, backend=fail.Keyring())
    assert reopened.get_api_key("openai", environ=NO_ENV) == "sk-file"
    reopened.set_api_key("custom", "sk-2")
    reopened.delete_api_key("openai")
    assert reopened.get_api_key("openai", environ=NO_ENV) is None
    assert reopened.get_api_key("custom", environ=NO_ENV) == "sk-2"
    reopened.delete_api_key("custom")
    assert not store.fallback_path.exists()


def test_a_locked_keyring_falls_back_to_the_file(tmp_path, caplog):
    store = SecretStore(tmp_path, backend=LockedKeyring())
    store.set_api_key("openai", "sk-locked")
    assert store.fallback_path.exists()
    assert store.get_api_key("openai", environ=NO_ENV) == "sk-locked"
    assert store.warning is not None
    assert "sk-locked" not in caplog.text


def test_saving_to_a_working_keyring_removes_an_old_file_copy(tmp_path):
    SecretStore(tmp_path, backend=fail.Keyring()).set_api_key("openai", "sk-old")
    store = SecretStore(tmp_path, backend=MemoryKeyring())
    assert store.get_api_key("openai", environ=NO_ENV) == "sk-old"  # still found
    assert store.warning is not None
    store.set_api_key("openai", "sk-new")
    assert not store.fallback_path.exists()
    assert store.warning is None
    assert store.get_api_key("openai", environ=NO_ENV) == "sk-new"


def test_the_environment_key_wins_for_openai_only(tmp_path):
    store = SecretStore(tmp_path, backend=MemoryKeyring())
    store.set_api_key("openai", "sk-stored")
    store.set_api_key("custom", "sk-custom")
    env = {"OPENAI_API_KEY": " sk-env "}
    assert store.get_api_key("openai", environ=env) == "sk-env"
    assert store.get_api_key("custom", environ=env) == "sk-custom"
    assert store.get_api_key("openai", environ={"OPENAI_API_KEY": ""}) == "sk-stored"


def test_setting_an_empty_key_deletes_it(tmp_path):
    store = SecretStore(tmp_path, backend=MemoryKeyring())
    store.set_api_key("openai", "sk-x")
    store.set_api_key("openai", "  ")
    assert store.get_api_key("openai", environ=NO_ENV) is None


def test_no_keyring_and_no_stored_key_is_nothing_to_warn_about(tmp_path):
    store = SecretStore(tmp_path, backend=fail.Keyring())
    assert store.warning is None  # said at every start before, with nothing stored
    # Settings still says where a key typed now would go.
    assert str(store.fallback_path) in store.new_key_warning
    store.set_api_key("custom", "sk-file-only")
    assert str(store.fallback_path) in store.warning
    store.delete_api_key("custom")
    assert store.warning is None
    assert SecretStore(tmp_path, backend=MemoryKeyring()).new_key_warning is None
