"""A chat's own model settings and each answer's token usage, over the scripted server.

A chat's own model, temperature and context budget reach the server in its turns, its
regenerated answers and its title; another chat keeps the profile's; background
learning keeps the profile's models. Each answer stores what the server reported of its
tokens, with the tokens its memories took, and a server that reports nothing leaves
the figures empty (never an estimate)."""

from __future__ import annotations

import pytest

from acai_desktop.core.conversations.chat_settings import (
    ChatSettings,
    ProfileChatDefaults,
    SettingScope,
    clean_chat_settings,
    effective_settings,
)
from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.turns.token_usage import TokenUsage
from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import Reply, prompt_words
from tests.core.conftest import TEST_MODELS
from tests.support.aio import run
from tests.support.assistant import running_assistant

OWN_MODEL = "big-model"
LONG_MESSAGE = "I am planning a long trip through the mountains of Norway next summer. " * 6


def kinds_and_models(server) -> list[tuple[str, str, float | None]]:
    return [
        (call_kind(r.json), r.json["model"], r.json.get("temperature"))
        for r in server.chat_requests()
    ]


def test_each_layer_sets_what_it_chose_and_the_rest_comes_from_below():
    profile = ProfileChatDefaults(model="fake-chat", context_budget_tokens=3000)
    plain = effective_settings(profile)
    assert (plain.model, plain.temperature, plain.context_budget_tokens) == (
        "fake-chat",
        None,
        3000,
    )
    assert set(plain.scopes.values()) == {SettingScope.PROFILE} and plain.own_model is None

    project = ChatSettings(model="project-model", context_budget_tokens=8000)
    chat = ChatSettings(temperature=0.2, context_budget_tokens=1000)
    mixed = effective_settings(profile, chat, project=project)
    assert (mixed.model, mixed.temperature, mixed.context_budget_tokens) == (
        "project-model",
        0.2,
        1000,
    )
    assert mixed.scope_of("model") == SettingScope.PROJECT
    assert mixed.scope_of("temperature") == SettingScope.CHAT
    assert mixed.own_model == "project-model"


@pytest.mark.parametrize(
    ("model", "temperature", "budget"),
    [(None, 2.5, None), (None, float("nan"), None), (None, None, 100), ("x" * 300, None, None)],
)
def test_a_value_that_cant_be_used_is_refused_in_one_line(model, temperature, budget):
    with pytest.raises(InvalidInputError) as refused:
        clean_chat_settings(model, temperature, budget)
    assert "\n" not in str(refused.value)


def test_routing_is_a_layer_like_the_others_and_a_name_it_doesnt_know_is_refused():
    routed = ProfileChatDefaults("m", None, routing="best")
    assert effective_settings(routed).routing == "best"
    assert effective_settings(routed, ChatSettings(routing="off")).routing == "off"
    plain = ProfileChatDefaults("m", None)
    assert effective_settings(plain, project=ChatSettings(routing="cheapest")).routing == (
        "cheapest"
    )
    stored = ChatSettings(routing="local_only")
    assert ChatSettings.from_json(stored.to_json()) == stored
    with pytest.raises(InvalidInputError, match="best, balanced"):
        clean_chat_settings(routing="smartest")


def test_stored_settings_and_usage_read_back_and_damage_reads_as_unset():
    settings = ChatSettings(" big   model ", 0.35, 4000)
    assert ChatSettings.from_json(settings.to_json()) == ChatSettings("big model", 0.35, 4000)
    assert ChatSettings().to_json() is None
    assert ChatSettings.from_json('{"temperature": "hot"}') == ChatSettings()
    usage = TokenUsage(120, 30, 45)
    assert TokenUsage.from_json(usage.to_json()) == usage
    assert TokenUsage.from_json('{"prompt_tokens": -1}') is None
    assert TokenUsage(None, None, 45).memory_share() is None
    assert TokenUsage(40, 3, 90).memory_share() == 1.0  # two tokenizers: capped


def test_a_chats_own_settings_reach_the_server_and_another_chat_keeps_the_profiles(
    tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    fake_openai.models = [*fake_openai.models, OWN_MODEL]

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            own = await assistant.conversations.create()
            other = await assistant.conversations.create()
            for chat in (own, other):
                await assistant.orchestrator.send(chat.id, LONG_MESSAGE)
            await assistant.chat_settings.set_for_chat(
                own.id, model=OWN_MODEL, temperature=0.3, context_budget_tokens=256
            )
            start = len(fake_openai.chat_requests())
            mine = await assistant.orchestrator.send(own.id, "Which month is best?")
            theirs = await assistant.orchestrator.send(other.id, "Which month is best?")
            again = await assistant.orchestrator.retry(mine.answer.id)
            await assistant.runner.wait_idle(timeout=60)
            stored = await assistant.conversations.get_message(mine.answer.id)
            return start, mine, theirs, again, stored

    start, mine, theirs, again, stored = run(scenario())
    answers = [r.json for r in fake_openai.chat_requests()[start:] if call_kind(r.json) == "chat"]
    own_turn, other_turn, regenerated = answers[:3]
    assert (own_turn["model"], own_turn["temperature"]) == (OWN_MODEL, 0.3)
    assert (regenerated["model"], regenerated["temperature"]) == (OWN_MODEL, 0.3)
    assert other_turn["model"] == TEST_MODELS.chat and "temperature" not in other_turn
    # The chat's budget (256 tokens, less than the system prompt) leaves no room for
    # its history; the profile's (3,000) carries the first exchange.
    assert len(own_turn["messages"]) == 2 and len(regenerated["messages"]) == 2
    assert len(other_turn["messages"]) == 4
    assert LONG_MESSAGE.strip() in other_turn["messages"][1]["content"]
    assert mine.settings.context_budget_tokens == 256 and stored.model == OWN_MODEL
    assert theirs.answer.model == TEST_MODELS.chat and again.answer.model == OWN_MODEL
    # Learning from the chat keeps the profile's models.
    learning = [(k, m) for k, m, _t in kinds_and_models(fake_openai) if k in ("triage",)]
    assert learning and all(model == TEST_MODELS.triage for _k, model in learning)


def test_a_new_chat_sent_with_settings_keeps_them_and_is_titled_by_its_model(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            result = await assistant.orchestrator.send(
                None, "Plan a weekend in Lisbon", settings=ChatSettings(model=OWN_MODEL)
            )
            await assistant.runner.wait_idle(timeout=60)
            own = await assistant.chat_settings.for_chat(result.conversation_id)
            with pytest.raises(InvalidInputError):
                await assistant.orchestrator.send(
                    None, "Hello", settings=ChatSettings(temperature=9.0)
                )
            conversations = await assistant.conversations.list()
            with pytest.raises(NotFoundError):
                await assistant.chat_settings.set_for_chat(10_000, temperature=0.5)
            return own, conversations

    own, conversations = run(scenario())
    assert own == ChatSettings(model=OWN_MODEL)
    assert len(conversations) == 1  # the refused settings started no conversation
    calls = kinds_and_models(fake_openai)
    assert ("chat", OWN_MODEL, None) in calls
    assert ("title", OWN_MODEL, 0) in calls  # the chat's model names it, at temperature 0
    assert all(m == TEST_MODELS.triage for k, m, _t in calls if k == "triage")


def test_each_answer_stores_the_servers_usage_and_memorys_share(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            note = await assistant.memories.remember(
                "The user's dog is called Biscuit.", kind=MemoryKind.NOTE, explicit=True
            )
            await assistant.memories.pin(note.id)
            chat = await assistant.conversations.create()
            result = await assistant.orchestrator.send(chat.id, "What is my dog called?")
            stored = await assistant.conversations.get_message(result.answer.id)
            return result, stored

    result, stored = run(scenario())
    request = next(r.json for r in fake_openai.chat_requests() if call_kind(r.json) == "chat")
    assert request["stream"] is True
    assert request["stream_options"] == {"include_usage": True}
    usage = stored.usage
    assert usage == result.usage
    assert usage.prompt_tokens == prompt_words(request)
    assert usage.completion_tokens == len(stored.content.split())
    assert 0 < usage.memory_tokens < result.prompt_tokens


def test_a_server_that_reports_no_usage_leaves_the_figures_empty(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    fake_openai.reports_usage = False

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            chat = await assistant.conversations.create()
            result = await assistant.orchestrator.send(chat.id, "Hello there")
            return await assistant.conversations.get_message(result.answer.id)

    stored = run(scenario())
    assert stored.status == "complete"
    assert stored.usage is not None and not stored.usage.reported
    assert (stored.usage.prompt_tokens, stored.usage.completion_tokens) == (None, None)


def test_a_server_that_refuses_stream_options_is_asked_again_without(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    fake_openai.script(
        Reply(status=400, error_message="Unrecognized request argument supplied: stream_options")
    )

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            chat = await assistant.conversations.create()
            first = await assistant.orchestrator.send(chat.id, "Hello there")
            second = await assistant.orchestrator.send(chat.id, "And again")
            return first.answer, second.answer

    first, second = run(scenario())
    asked = [r.json for r in fake_openai.chat_requests()]
    assert "stream_options" in asked[0] and "stream_options" not in asked[1]
    assert "stream_options" not in asked[2]  # not asked again
    assert first.status == second.status == "complete"
    assert not first.usage.reported


def test_a_chats_own_budget_decides_what_its_summary_folds(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            chats = [await assistant.conversations.create() for _ in range(2)]
            for chat in chats:
                for i in range(10):
                    await assistant.conversations.add_message(
                        chat.id, "user", f"Question {i}: tell me about topic {i} in detail."
                    )
                    await assistant.conversations.add_message(
                        chat.id, "assistant", f"Answer {i}: " + "a long explanation " * 20
                    )
            own = chats[0]
            await assistant.chat_settings.set_for_chat(own.id, context_budget_tokens=1000)
            return [await assistant.summary.summarise_if_needed(c.id) for c in chats]

    folded_own, folded_profiles = run(scenario())
    # About 1,000 tokens of messages: over the history's room in a 1,000-token prompt,
    # well within it in the profile's 3,000.
    assert folded_own is not None and folded_profiles is None
