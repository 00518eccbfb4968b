"""Model settings: presets, the settings file (shared with other keys), atomic saves."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.presets import (
    OPENAI_BASE_URL,
    PRESETS,
    ModelRole,
    ProviderName,
    StructuredMode,
)
from acai_desktop.core.models.settings import (
    ModelSettings,
    load_model_settings,
    save_model_settings,
)
from acai_desktop.core.profile.paths import Profile


def test_every_preset_has_a_model_for_every_role():
    for preset in PRESETS.values():
        for role in ModelRole:
            assert preset.models.for_role(role)
    assert PRESETS[ProviderName.OPENAI].base_url == OPENAI_BASE_URL
    assert PRESETS[ProviderName.OLLAMA].base_url == "http://localhost:11434/v1"
    assert PRESETS[ProviderName.LMSTUDIO].base_url == "http://localhost:1234/v1"


def test_first_start_has_no_settings_and_a_save_round_trips(tmp_path):
    profile = Profile.at(tmp_path / "profile")
    assert load_model_settings(profile.settings_path) is None
    settings = ModelSettings.for_preset(
        "ollama", context_budget_tokens=5000, embedding_source="provider"
    )
    save_model_settings(profile.settings_path, settings)
    assert load_model_settings(profile.settings_path) == settings
    assert settings.model_for("embedding") == "nomic-embed-text"
    assert settings.resolved_base_url() == "http://localhost:11434/v1"
    assert settings.resolved_structured_mode() == StructuredMode.JSON_SCHEMA


def test_saving_keeps_the_other_keys_of_the_settings_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "dark", "window": {"width": 900}}))
    save_model_settings(path, ModelSettings.for_preset("openai"))
    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and data["window"] == {"width": 900}
    assert data["llm"]["provider"] == "openai"
    assert "key" not in json.dumps(data["llm"]).lower()
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left


def test_custom_needs_a_url_and_local_asks_the_running_server():
    with pytest.raises(InvalidInputError, match="base URL"):
        ModelSettings.for_preset("custom").resolved_base_url()
    custom = ModelSettings.for_preset("custom", base_url="http://10.0.0.5:8000/v1/")
    assert custom.resolved_base_url() == "http://10.0.0.5:8000/v1"
    local = ModelSettings.for_preset("local")
    assert local.resolved_base_url() is None
    assert local.resolved_structured_mode() == StructuredMode.JSON_OBJECT_SCHEMA


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{broken", "not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"llm": {"provider": "nonsense"}}', "provider"),
        ('{"llm": {"context_budget_tokens": 10}}', "context_budget_tokens"),
    ],
)
def test_a_damaged_settings_file_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "settings.json"
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=message):
        load_model_settings(path)


def test_answer_deadlines_follow_where_the_model_runs_unless_set():
    """Issue 39: 180 s to the first words and 900 s for an answer were longer than anyone
    waits. Now: 120 s for a model on this computer (it may load first), 60 s for one in
    the cloud, 300 s for the answer; a number the user set is kept."""
    from acai_desktop.core.models.call_limits import CallDeadlines

    cloud = ModelSettings.for_preset("openai")
    local = ModelSettings.for_preset("ollama")
    custom_here = ModelSettings.for_preset("custom", base_url="http://127.0.0.1:8000/v1")
    custom_away = ModelSettings.for_preset("custom", base_url="https://llm.example.com/v1")
    assert CallDeadlines.from_settings(cloud) == CallDeadlines(first_token=60, answer=300)
    assert CallDeadlines.from_settings(local) == CallDeadlines(first_token=120, answer=300)
    assert custom_here.resolved_first_token_timeout() == 120
    assert custom_away.resolved_first_token_timeout() == 60
    chosen = ModelSettings.for_preset(
        "openai", first_token_timeout_seconds=45, answer_timeout_seconds=1200
    )
    assert CallDeadlines.from_settings(chosen) == CallDeadlines(first_token=45, answer=1200)


def test_the_old_default_deadlines_saved_by_format_2_become_automatic(tmp_path):
    path = tmp_path / "settings.json"
    old = ModelSettings.for_preset("openai").model_dump(mode="json")
    old.update(settings_version=2, first_token_timeout_seconds=180.0, answer_timeout_seconds=900.0)
    path.write_text(json.dumps({"llm": old}), encoding="utf-8")
    loaded = load_model_settings(path)
    assert (loaded.first_token_timeout_seconds, loaded.answer_timeout_seconds) == (None, None)
    assert loaded.resolved_first_token_timeout() == 60
    old.update(first_token_timeout_seconds=30.0, answer_timeout_seconds=900.0)
    path.write_text(json.dumps({"llm": old}), encoding="utf-8")
    assert load_model_settings(path).first_token_timeout_seconds == 30.0  # a choice stays
