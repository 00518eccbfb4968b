"""With the built-in model the app answers the memory commands itself (issue 40, item 4):
"What do you know about me?" lists the user's facts and notes as the memory panel has
them, "Remember that …" and "Forget that …" say what the learning job will do. No model
call; the answer is saved, announced and sourced like any other."""

from __future__ import annotations

from acai_desktop.core import events as ev
from acai_desktop.core.learning.plain_statements import (
    MemoryRequest,
    forget_requests,
    memory_requests,
    requested_facts,
)
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.rules.bearings import asks_what_is_known
from acai_desktop.core.turns.memory_commands import APP_MODEL, NOTHING_KNOWN, said_back
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

MODEL_ANSWER = "The model's own answer."


def test_questions_about_the_user_are_told_from_other_requests():
    for asked in (
        "What do you know about me?",
        "what do you remember about me",
        "Who am I?",
        "So, what else do you know about me?",
        "Do you know anything about me?",
        "What have I told you?",
        "Tell me about myself.",
    ):
        assert asks_what_is_known(asked), asked
    for other in (
        "Given what you know about me, what should I cook?",
        "What do you know about me and my sister?",
        "What do you know about Mars?",
        "What did I tell you about my sister?",
    ):
        assert not asks_what_is_known(other), other


def test_a_message_of_memory_requests_only():
    assert memory_requests("Remember that my passport expires in May.") == [
        MemoryRequest(False, "my passport expires in May")
    ]
    assert memory_requests("Please forget that I live in Lisbon. Thanks!") == [
        MemoryRequest(True, "I live in Lisbon")
    ]
    assert memory_requests("Remember I'm vegan. What should I cook tonight?") == []
    assert memory_requests("Remember to buy milk.") == []  # a reminder: not kept
    assert memory_requests("I live in Porto.") == []
    # The rules the learning job applies are the same ones.
    [(fact, _)] = requested_facts("Remember that my passport expires in May.")
    assert fact == "The user's passport expires in May."
    assert forget_requests("Please forget that I live in Lisbon.") == ["I live in Lisbon"]
    assert said_back("I'm sure my dog likes me") == "you're sure your dog likes you"


def _session(tmp_path, fake_openai, scenario_steps, *, built_in=True):
    fake_openai.responder = lambda request: Reply(text=MODEL_ANSWER)

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            # As with the built-in model (assistant.py sets it for that model alone).
            assistant.orchestrator.answers_memory_commands = built_in
            return await scenario_steps(assistant)

    return run(scenario())


def test_what_do_you_know_lists_the_memories_without_the_model(tmp_path, fake_openai):
    async def steps(assistant):
        memories = assistant.memories
        await memories.remember("The user lives in Lisbon.", explicit=True)
        vegetarian = await memories.remember("The user is vegetarian.", explicit=True)
        note = await memories.remember("I water the plants on Sundays.", kind=MemoryKind.NOTE)
        await memories.pin(note.id)
        await memories.remember(
            "Summary of a chat.", kind=MemoryKind.SUMMARY, explicit=True
        )  # not a fact: not listed
        shown: list[ev.MessageUpdated] = []
        finished: list[ev.AnswerFinished] = []
        assistant.events.subscribe(ev.MessageUpdated, shown.append)
        assistant.events.subscribe(ev.AnswerFinished, finished.append)
        conversation = await assistant.conversations.create()
        result = await assistant.orchestrator.send(conversation.id, "What do you know about me?")
        saved = await assistant.conversations.get_message(result.answer.id)
        sources = await assistant._provenance.sources_of_answer(result.answer.id)
        return result, saved, sources, shown, finished, note, vegetarian

    result, saved, sources, shown, finished, note, vegetarian = _session(
        tmp_path, fake_openai, steps
    )
    assert fake_openai.chat_requests() == []  # no model call
    lines = result.answer.content.splitlines()
    assert lines[0] == "Here is what I remember about you:"
    bullets = [line for line in lines if line.startswith("- ")]
    assert bullets[0] == "- I water the plants on Sundays."  # pinned first
    assert set(bullets[1:]) == {"- The user lives in Lisbon.", "- The user is vegetarian."}
    assert "Summary of a chat." not in result.answer.content
    assert saved.status == MessageStatus.COMPLETE and saved.model == APP_MODEL
    assert saved.content == result.answer.content
    listed = [s.memory_id for s in sorted(sources, key=lambda s: s.rank)]
    assert listed[0] == note.id and vegetarian.id in listed and len(listed) == 3
    assert all(s.reasons == ["about you"] for s in sources)
    # Announced like a streamed answer: its text, then the final status and the end.
    assert shown[-1].delta.status == MessageStatus.COMPLETE
    assert any(e.delta.content == saved.content for e in shown)
    assert finished[-1].message.id == saved.id
    assert [s.memory_id for s in finished[-1].sources] == listed


def test_with_many_memories_the_rest_are_in_the_panel(tmp_path, fake_openai):
    async def steps(assistant):
        for n in range(13):
            await assistant.memories.remember(f"The user has hobby number {n}.", explicit=True)
        conversation = await assistant.conversations.create()
        return await assistant.orchestrator.send(conversation.id, "Who am I?")

    result = _session(tmp_path, fake_openai, steps)
    assert fake_openai.chat_requests() == []
    assert sum(line.startswith("- ") for line in result.answer.content.splitlines()) == 10
    assert result.answer.content.endswith("…and 3 more in the memory panel.")
    assert len(result.memories_used) == 10


def test_with_nothing_known_it_says_so(tmp_path, fake_openai):
    async def steps(assistant):
        conversation = await assistant.conversations.create()
        return await assistant.orchestrator.send(conversation.id, "What do you know about me?")

    result = _session(tmp_path, fake_openai, steps)
    assert fake_openai.chat_requests() == []
    assert result.answer.content == NOTHING_KNOWN
    assert result.memories_used == []


def test_remember_and_forget_are_answered_without_the_model(tmp_path, fake_openai):
    async def steps(assistant):
        conversation = await assistant.conversations.create()
        send = assistant.orchestrator.send
        remembered = await send(conversation.id, "Remember that my passport expires in May.")
        forgotten = await send(conversation.id, "Forget that I live in Lisbon.")
        other = await send(conversation.id, "What should I cook tonight?")
        return remembered, forgotten, other

    remembered, forgotten, other = _session(tmp_path, fake_openai, steps)
    assert remembered.answer.content == "I'll remember that your passport expires in May."
    assert forgotten.answer.content == "I'll forget that you live in Lisbon."
    assert remembered.answer.model == forgotten.answer.model == APP_MODEL
    assert remembered.job_ids  # the learning job still runs after the answer
    # Only the last message reached the model.
    assert len(fake_openai.chat_requests()) == 1
    assert other.answer.content == MODEL_ANSWER


def test_other_models_answer_the_commands_themselves(tmp_path, fake_openai):
    async def steps(assistant):
        await assistant.memories.remember("The user lives in Lisbon.", explicit=True)
        conversation = await assistant.conversations.create()
        asked = await assistant.orchestrator.send(conversation.id, "What do you know about me?")
        told = await assistant.orchestrator.send(conversation.id, "Remember that I'm vegan.")
        return asked, told

    asked, told = _session(tmp_path, fake_openai, steps, built_in=False)
    assert asked.answer.content == told.answer.content == MODEL_ANSWER
    requests = fake_openai.chat_requests()
    assert len(requests) == 2
    assert "The user lives in Lisbon." in str(requests[0].json["messages"])  # in the prompt


def test_a_temporary_chat_says_it_keeps_nothing(tmp_path, fake_openai):
    async def steps(assistant):
        return await assistant.orchestrator.send(None, "Remember that I'm vegan.", temporary=True)

    result = _session(tmp_path, fake_openai, steps)
    assert fake_openai.chat_requests() == []
    assert "temporary chat" in result.answer.content and result.job_ids == []
