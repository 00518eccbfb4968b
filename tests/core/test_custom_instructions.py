"""Custom instructions: the user's own words go into every prompt (as the user's
instructions, at the start of the system message), the chat's override replaces the
profile's, the answer records which it used, and only the user ever writes them."""

from __future__ import annotations

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.custom_instructions import (
    MAX_INSTRUCTION_CHARS,
    CustomInstructions,
    InstructionsScope,
)
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.prompt_lines import INSTRUCTIONS_HEADER
from acai_desktop.core.resources import resource_text
from acai_lab.scripted_model import fake_model
from tests.core.conftest import TEST_MODELS
from tests.support.aio import run
from tests.support.assistant import running_assistant

RESPOND = "Answer in British English, briefly, with bullet points."
ABOUT = "I am a nurse working night shifts in Leeds."
CHAT_RESPOND = "Reply like a pirate."


def chat_prompts(server) -> list[str]:
    """The system message of every answer the server was asked for."""
    return [
        r.json["messages"][0]["content"]
        for r in server.chat_requests()
        if r.json["model"] == TEST_MODELS.chat
    ]


def test_the_instructions_are_in_every_prompt_and_a_chat_can_override_them(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            news: list = []
            assistant.events.subscribe(ev.InstructionsChanged, news.append)
            finished: list = []
            assistant.events.subscribe(ev.AnswerFinished, finished.append)
            service = assistant.instructions
            await service.set_profile(f"  {RESPOND}  ", ABOUT)
            first = await assistant.conversations.create()
            one = await assistant.orchestrator.send(first.id, "What should I eat before work?")
            other = await assistant.conversations.create()
            await service.set_for_chat(other.id, CHAT_RESPOND, "")
            two = await assistant.orchestrator.send(other.id, "What should I eat before work?")
            await service.use_profile_for_chat(other.id)
            three = await assistant.orchestrator.send(other.id, "And after work?")
            stored = await assistant.conversations.get_message(two.answer.id)
            sources = await assistant.conversations.answer_sources(two.answer.id)
            _, counts = await assistant.conversations.messages_with_sources(first.id)
            await assistant.runner.wait_idle(timeout=60)
            reread = (sources, counts)
            return news, finished, one, two, three, stored, reread, await service.profile()

    news, finished, one, two, three, stored, reread, profile = run(scenario())
    first, second, third = chat_prompts(fake_openai)
    # The profile's instructions, in the user's words, after the system prompt's rules
    # and before any memory block.
    assert INSTRUCTIONS_HEADER in first and RESPOND in first and ABOUT in first
    # ... right after the system prompt: the prompt's stable start.
    system_prompt = resource_text("prompts", "system.txt").strip()
    assert first.startswith(f"{system_prompt}\n\n{INSTRUCTIONS_HEADER}\n")
    assert first.index(INSTRUCTIONS_HEADER) < first.index(RESPOND) < first.index(ABOUT)
    # The chat's override replaces them whole; dropping it brings them back.
    assert CHAT_RESPOND in second and RESPOND not in second and ABOUT not in second
    assert RESPOND in third and ABOUT in third and CHAT_RESPOND not in third
    # Each answer says which it used, in the news and on disk (for Sources).
    assert one.instructions.scope == three.instructions.scope == InstructionsScope.PROFILE
    assert two.instructions.instructions == CustomInstructions(CHAT_RESPOND, "")
    assert stored.instructions == two.instructions
    # Sources lists them, and a chat opened again counts them as one of the sources.
    sources, counts = reread
    assert sources.instructions == two.instructions
    assert counts[one.answer.id] == len(one.memories_used) + len(one.evidence_used) + 1
    assert [f.instructions.scope for f in finished] == ["profile", "chat", "profile"]
    assert [n.conversation_id for n in news] == [None, 2, 2]
    # Learning ran over these turns: the instructions are still the user's words.
    assert profile == CustomInstructions(RESPOND, ABOUT)


def test_without_instructions_the_prompt_has_no_such_section(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            chat = await assistant.conversations.create()
            result = await assistant.orchestrator.send(chat.id, "Hello there")
            sources = await assistant.conversations.answer_sources(result.answer.id)
            _, counts = await assistant.conversations.messages_with_sources(chat.id)
            return result, sources, counts

    result, sources, counts = run(scenario())
    assert result.instructions is None and sources.instructions is None
    assert counts[result.answer.id] == len(result.memories_used) + len(result.evidence_used)
    assert INSTRUCTIONS_HEADER not in chat_prompts(fake_openai)[0]


def test_instructions_that_cant_be_kept_are_refused_and_nothing_changes(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            service = assistant.instructions
            await service.set_profile(RESPOND, ABOUT)
            for respond in ("x" * (MAX_INSTRUCTION_CHARS + 1), "bad\x00text", 42):
                with pytest.raises(InvalidInputError):
                    await service.set_profile(respond, "")
            return await service.profile()

    assert run(scenario()) == CustomInstructions(RESPOND, ABOUT)
