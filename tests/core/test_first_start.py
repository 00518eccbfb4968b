"""First start: propose what is there and remember the choice."""

import json

from acai_desktop.core.assistant import ModelOverrides, resolve_settings
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.profile import Profile
from tests.support.aio import run


def test_first_start_saves_the_proposal_and_later_starts_reuse_it(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    profile = Profile.at(tmp_path).ensure()
    chosen = run(resolve_settings(profile, ModelOverrides()))
    # No local server answers on the probed ports here, and a key is set.
    assert chosen.provider == ProviderName.OPENAI
    saved = json.loads(profile.settings_path.read_text())["llm"]
    assert saved["provider"] == "openai"

    monkeypatch.delenv("OPENAI_API_KEY")
    assert run(resolve_settings(profile, ModelOverrides())).provider == ProviderName.OPENAI


def test_an_override_wins_without_changing_what_is_saved(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    profile = Profile.at(tmp_path).ensure()
    first = run(resolve_settings(profile, ModelOverrides()))
    assert first.provider == ProviderName.LOCAL  # the local extra is installed for the tests
    custom = run(
        resolve_settings(profile, ModelOverrides("custom", "http://127.0.0.1:9/v1", model="tiny"))
    )
    assert custom.provider == ProviderName.CUSTOM
    assert custom.resolved_base_url() == "http://127.0.0.1:9/v1"
    assert custom.model_for("triage") == "tiny"
    assert json.loads(profile.settings_path.read_text())["llm"]["provider"] == "local"
