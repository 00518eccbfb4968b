"""Model settings: presets, the settings file (shared with other keys), atomic saves."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.llm.presets import (
    OPENAI_BASE_URL,
    PRESETS,
    ModelRole,
    ProviderName,
    StructuredMode,
)
from acai_desktop.core.llm.settings import (
    ModelSettings,
    load_model_settings,
    save_model_settings,
)
from acai_desktop.core.profile import Profile


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
