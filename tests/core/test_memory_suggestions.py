""" "Ask before remembering": new facts wait as suggestions; accepted they are memories,
dismissed they never come back for that message."""

from contextlib import asynccontextmanager

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.records.memories import MemoryStatus, SuggestionStatus
from acai_desktop.core.store.memories import MemoryFilter
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

FACTS = {"facts": [{"fact": "The user's dog is named Buster", "category": "Personal",
                    "confidence": 0.9}]}  # fmt: skip


async def _tell(assistant, server, conversation_id: int, text: str = "My dog's name is Buster."):
    """The user says ``text``; the scripted model finds the Buster fact in it."""
    server.script(Reply(json_obj={"durable_fact": True}), Reply(json_obj=FACTS))
    message = await assistant.conversations.add_message(conversation_id, "user", text)
    return message, await assistant.critical_info.process_message(message.id)


@asynccontextmanager
async def asking_assistant(tmp_path, fake_openai):
    async with running_assistant(
        tmp_path, fake_openai, start_jobs=False, ask_before_remembering=True
    ) as assistant:
        yield assistant


def test_facts_wait_for_a_yes_and_an_accepted_one_is_a_memory(tmp_path, fake_openai):
    async def scenario():
        async with asking_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            message, outcome = await _tell(assistant, fake_openai, conversation.id)
            before = await assistant.memories.list(MemoryFilter(statuses=None))
            pending = await assistant.suggestions.pending()
            memory = await assistant.suggestions.accept(pending[0].id)
            sources = await assistant.memories.sources(memory.id)
            with pytest.raises(InvalidInputError, match="already accepted"):
                await assistant.suggestions.dismiss(pending[0].id)
            return (
                message,
                outcome,
                before,
                pending,
                memory,
                sources,
                (await assistant.suggestions.pending()),
            )

    message, outcome, before, pending, memory, sources, after = run(scenario())
    assert before == [] and outcome.stored == []
    assert [(s.content, s.message_id) for s in pending] == [
        ("The user's dog is named Buster", message.id)
    ]
    assert outcome.suggested == pending
    assert memory.content == "The user's dog is named Buster"
    assert memory.status == MemoryStatus.ACTIVE
    assert sources == [message.id]
    assert after == []


def test_a_dismissed_fact_is_never_proposed_again_for_that_message(tmp_path, fake_openai):
    async def scenario():
        async with asking_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            message, _ = await _tell(assistant, fake_openai, conversation.id)
            [suggestion] = await assistant.suggestions.pending()
            dismissed = await assistant.suggestions.dismiss(suggestion.id)
            with pytest.raises(InvalidInputError, match="already dismissed"):
                await assistant.suggestions.accept(suggestion.id)  # stores nothing
            # The job runs again (a retry after a crash): the model says the same.
            fake_openai.script(Reply(json_obj={"durable_fact": True}), Reply(json_obj=FACTS))
            again = await assistant.critical_info.process_message(message.id)
            # Another message saying it again is a new proposal.
            _, elsewhere = await _tell(
                assistant, fake_openai, conversation.id, "Buster is my dog's name."
            )
            return dismissed, again, elsewhere, await assistant.memories.list()

    dismissed, again, elsewhere, memories = run(scenario())
    assert dismissed.status == SuggestionStatus.DISMISSED
    assert again.suggested == [] and again.stored == []
    assert len(elsewhere.suggested) == 1
    assert memories == []


def test_a_fact_said_again_is_asked_about_once_and_once_kept_is_reinforced(tmp_path, fake_openai):
    async def scenario():
        async with asking_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            first, _ = await _tell(assistant, fake_openai, conversation.id)
            # Said again before the user answered: the question already waits.
            _, while_waiting = await _tell(
                assistant, fake_openai, conversation.id, "Buster is my dog's name."
            )
            [suggestion] = await assistant.suggestions.pending()
            memory = await assistant.suggestions.accept(suggestion.id)
            # Said again once kept: nothing to ask, the memory is reinforced.
            third, once_kept = await _tell(
                assistant, fake_openai, conversation.id, "My dog is called Buster."
            )
            return (
                first,
                third,
                while_waiting,
                once_kept,
                memory,
                await assistant.suggestions.pending(),
                await assistant.memories.sources(memory.id),
            )

    first, third, while_waiting, once_kept, memory, pending, sources = run(scenario())
    assert while_waiting.suggested == []
    assert once_kept.suggested == [] and once_kept.reinforced == [memory.id]
    assert pending == []
    assert sources == [first.id, third.id]


def test_deleting_the_conversation_takes_its_suggestions(tmp_path, fake_openai):
    async def scenario():
        async with asking_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            await _tell(assistant, fake_openai, conversation.id)
            assert len(await assistant.suggestions.pending()) == 1
            await assistant.conversations.delete(conversation.id)
            return await assistant.suggestions.pending()

    assert run(scenario()) == []


@pytest.mark.parametrize(
    ("settings", "asks"),
    [
        (ModelSettings.for_preset(ProviderName.LOCAL), True),
        (ModelSettings.for_preset(ProviderName.LOCAL, local_model_path="/models/big.gguf"), False),
        (ModelSettings.for_preset(ProviderName.OPENAI), False),
        (ModelSettings.for_preset(ProviderName.OLLAMA, ask_before_remembering=True), True),
        (ModelSettings.for_preset(ProviderName.LOCAL, ask_before_remembering=False), False),
    ],
)
def test_asking_is_on_by_default_only_with_the_bundled_small_model(settings, asks):
    assert settings.asks_before_remembering() is asks


def test_an_accepted_new_home_replaces_the_one_before_and_keeps_it_as_history(
    tmp_path, fake_openai
):
    """The built-in model's rules weigh no two facts and accepting asks no model: where
    the user lives, said again, replaces what was known (core.rules.slots)."""

    async def scenario():
        async with asking_assistant(tmp_path, fake_openai) as assistant:
            assistant.critical_info.facts_by_rules = True
            conversation = await assistant.conversations.create()
            accepted = []
            for text in ("I live in Madrid.", "I love jazz.", "I moved to Berlin last month."):
                message = await assistant.conversations.add_message(conversation.id, "user", text)
                await assistant.critical_info.process_message(message.id)
                [suggestion] = await assistant.suggestions.pending()
                accepted.append(await assistant.suggestions.accept(suggestion.id))
            madrid = await assistant.memories.get(accepted[0].id)
            active = await assistant.memories.list(MemoryFilter())
            return accepted, madrid, active

    (_madrid, jazz, berlin), madrid, active = run(scenario())
    assert {m.content for m in active} == {
        "The user loves jazz.",
        "The user moved to Berlin last month.",
    }
    assert madrid.status == MemoryStatus.SUPERSEDED and madrid.superseded_by == berlin.id
    assert jazz.status == MemoryStatus.ACTIVE and berlin.status == MemoryStatus.ACTIVE
