"""An evaluation's temporary profile: the user's model settings and key reach it, nothing
of the user's profile is written, and the directory is gone afterwards."""

from __future__ import annotations

import json
import stat

import keyring
import keyring.backends.fail
import pytest

from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.models.settings import load_model_settings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.evaluation.temporary_profile import temporary_profile
from tests.core.conftest import settings_for
from tests.support.aio import run


@pytest.fixture
def no_keyring(monkeypatch):
    """No system keyring: keys live in the 0600 file, this machine's keyring untouched."""
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())


def snapshot(profile: Profile) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in profile.data_dir.iterdir() if p.is_file()}


def test_the_users_model_and_key_reach_the_temporary_profile(tmp_path, fake_openai, no_keyring):
    user = Profile.at(tmp_path / "user").ensure()
    save_model_settings(user.settings_path, settings_for(fake_openai))
    SecretStore(user.data_dir).set_api_key("custom", "sk-test-456")
    before = snapshot(user)

    async def scenario():
        async with temporary_profile("acai-test-", user) as profile:
            seen = (
                load_model_settings(profile.settings_path),
                SecretStore(profile.data_dir).get_api_key("custom"),
                stat.S_IMODE((profile.data_dir / "secrets.json").stat().st_mode),
            )
            return profile.data_dir, seen

    directory, (settings, key, mode) = run(scenario())
    assert settings == load_model_settings(user.settings_path)
    assert key == "sk-test-456" and mode == 0o600
    assert not directory.exists()
    assert snapshot(user) == before
    assert json.loads((user.data_dir / "secrets.json").read_text()) == {"custom": "sk-test-456"}


def test_without_a_model_profile_nothing_is_configured(tmp_path):
    async def scenario():
        async with temporary_profile("acai-test-") as profile:
            return profile.data_dir, profile.settings_path.exists()

    directory, configured = run(scenario())
    assert not configured and not directory.exists()


def test_a_profile_with_nothing_saved_lends_nothing(tmp_path, no_keyring):
    user = Profile.at(tmp_path / "user").ensure()

    async def scenario():
        async with temporary_profile("acai-test-", user) as profile:
            return profile.settings_path.exists()

    assert run(scenario()) is False
