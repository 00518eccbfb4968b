"""The prompt budget follows the model: the rule that turns "automatic" into a number,
the known models' table, and the settings of before (a saved 3,000 was everyone's
default, so it reads as automatic; any other number was the user's and is kept)."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.conversations.chat_settings import (
    AUTOMATIC,
    ChatSettings,
    ProfileChatDefaults,
    SettingScope,
    clean_chat_settings,
    effective_settings,
)
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.context_window import (
    BUILT_IN_SERVER,
    ContextWindow,
    WindowSource,
    short_tokens,
    window_from_table,
)
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.prompt_budget import AUTOMATIC_CAP_TOKENS, resolve_budget
from acai_desktop.core.models.settings import (
    SETTINGS_VERSION,
    ModelSettings,
    load_model_settings,
    save_model_settings,
)


def window(tokens: int, model: str = "llama3.1", **kw) -> ContextWindow:
    return ContextWindow(tokens, model, kw.pop("source", WindowSource.SERVER), **kw)


@pytest.mark.parametrize(
    ("tokens", "answer", "expected", "limit"),
    [
        (131_072, None, AUTOMATIC_CAP_TOKENS, "cap"),  # half would be 65,536
        (8_192, None, 4_096, "half"),
        (2_048, None, 1_024, "half"),
        (8_192, 6_000, 2_192, "answer"),  # half would leave the answer no room
    ],
)
def test_automatic_takes_half_the_window_capped_and_leaves_the_answer_room(
    tokens, answer, expected, limit
):
    budget = resolve_budget(None, window(tokens), answer_max_tokens=answer)
    assert (budget.tokens, budget.automatic, budget.limit) == (expected, True, limit)
    assert budget.tokens + (answer or 0) <= tokens


def test_the_built_in_server_keeps_its_small_budget_and_an_unknown_window_the_old_one():
    built_in = window(4096, "SmolLM2-135M-Instruct", server=BUILT_IN_SERVER)
    budget = resolve_budget(None, built_in, answer_max_tokens=160, built_in_server=True)
    assert budget.tokens == 3000 and budget.tokens + 160 <= 4096
    assert budget.describe() == (
        "Automatic: 3,000 tokens (the built-in server's budget, in its 4k window)"
    )
    unknown = resolve_budget(None, None)
    assert unknown.tokens == 3000
    assert unknown.describe() == "Automatic: 3,000 tokens (the model's context window is not known)"


def test_a_number_chosen_is_kept_and_flagged_when_it_leaves_the_answer_no_room():
    chosen = resolve_budget(5000, window(131_072))
    assert (chosen.tokens, chosen.automatic, chosen.describe()) == (5000, False, "5,000 tokens")
    assert chosen.note() == ""  # it fits: nothing to add
    too_big = resolve_budget(8000, window(8192, server="Ollama"), answer_max_tokens=512)
    assert too_big.tokens == 8000  # the user's choice stands
    assert too_big.note().startswith("More than llama3.1's 8k window leaves for a prompt")


def test_the_description_says_where_the_window_comes_from():
    capped = resolve_budget(None, window(131_072, server="Ollama", trained_tokens=131_072))
    assert capped.describe() == (
        "Automatic: 16,000 tokens (half of llama3.1's 128k window, capped)"
    )
    assert capped.note() == "As Ollama runs it."
    assumed = resolve_budget(
        None,
        window(4096, server="Ollama", source=WindowSource.SERVER_DEFAULT, trained_tokens=131_072),
    )
    assert assumed.describe() == "Automatic: 2,048 tokens (half of llama3.1's 4k window)"
    assert assumed.note() == (
        "Ollama's default window, assumed (Ollama doesn't say); the model was trained for "
        "128k; set num_ctx in Ollama to use more."
    )


@pytest.mark.parametrize(
    ("model", "tokens"),
    [
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1-nano", 1_047_576),
        ("gpt-5", 400_000),
        ("o3-mini", 200_000),
        ("claude-3-5-sonnet-latest", 200_000),
        ("llama3.1:8b", 131_072),
        ("Meta-Llama-3.1-8B-Instruct", 131_072),
        ("lmstudio-community/meta-llama-3.1-8b-instruct", 131_072),
        ("llama3:8b", 8_192),
        ("qwen2.5:7b-instruct", 32_768),
        ("mistral-nemo", 131_072),
        ("mistral:7b", 32_768),
        ("gemma2:9b", 8_192),
        ("gemma3:4b", 131_072),
    ],
)
def test_the_table_knows_model_families_by_the_start_of_their_names(model, tokens):
    found = window_from_table(model)
    assert found is not None and (found.tokens, found.source) == (tokens, WindowSource.TABLE)


def test_the_table_does_not_guess():
    assert window_from_table("fake-chat") is None
    assert window_from_table("") is None and window_from_table(None) is None


def test_windows_are_written_the_way_people_say_them():
    assert [short_tokens(n) for n in (131_072, 128_000, 8_192, 4_096, 2_048, 1_047_576)] == [
        "128k",
        "128k",
        "8k",
        "4k",
        "2,048",
        "1M",
    ]


def test_automatic_follows_the_model_each_chat_runs_with():
    profile = ProfileChatDefaults("gpt-4o-mini", None)
    plain = effective_settings(profile, window=window_from_table("gpt-4o-mini"))
    assert (plain.context_budget_tokens, plain.budget.automatic) == (16_000, True)
    small = effective_settings(
        profile, ChatSettings(model="llama3:8b"), window=window_from_table("llama3:8b")
    )
    assert small.context_budget_tokens == 4096
    assert small.scope_of("context_budget_tokens") == SettingScope.PROFILE


def test_a_chat_may_choose_automatic_over_the_profiles_number():
    profile = ProfileChatDefaults("llama3:8b", 5000)
    own = clean_chat_settings(context_budget_tokens=AUTOMATIC)
    assert ChatSettings.from_json(own.to_json()) == own  # stored and read back
    mine = effective_settings(profile, own, window=window(8192))
    assert (mine.context_budget_tokens, mine.budget.automatic) == (4096, True)
    assert mine.scope_of("context_budget_tokens") == SettingScope.CHAT
    assert effective_settings(profile, window=window(8192)).context_budget_tokens == 5000
    with pytest.raises(InvalidInputError):
        clean_chat_settings(context_budget_tokens=100)  # neither automatic nor in bounds


def test_new_settings_are_automatic_and_a_chosen_number_survives_saving(tmp_path):
    path = tmp_path / "settings.json"
    assert ModelSettings().context_budget_tokens is None
    save_model_settings(path, ModelSettings.for_preset(ProviderName.OLLAMA))
    assert load_model_settings(path).context_budget_tokens is None
    # From this version on, a 3,000 saved is one the user chose.
    save_model_settings(path, ModelSettings.for_preset("ollama", context_budget_tokens=3000))
    saved = json.loads(path.read_text())["llm"]
    assert (saved["context_budget_tokens"], saved["settings_version"]) == (3000, SETTINGS_VERSION)
    assert load_model_settings(path).context_budget_tokens == 3000


@pytest.mark.parametrize(("saved", "read"), [(3000, None), (5000, 5000), (256, 256)])
def test_settings_of_before_read_the_old_default_as_automatic_and_keep_any_other_number(
    tmp_path, saved, read
):
    path = tmp_path / "settings.json"
    before = {"llm": {"provider": "ollama", "context_budget_tokens": saved}, "ui": {"theme": 1}}
    path.write_text(json.dumps(before))
    settings = load_model_settings(path)
    assert settings.context_budget_tokens == read
    assert settings.settings_version == SETTINGS_VERSION
    save_model_settings(path, settings)  # rewritten in this version's format, once
    assert load_model_settings(path).context_budget_tokens == read
    assert json.loads(path.read_text())["ui"] == {"theme": 1}
