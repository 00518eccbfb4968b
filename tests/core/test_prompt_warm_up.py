"""A local server reads a prompt's known start while nobody waits (issue 22: time to
first token over ten messages): the system prompt when the assistant opens, and after
an answer the next prompt's start when the next turn cuts the history. A turn never
waits for a warm-up: it cancels it."""

from __future__ import annotations

import asyncio

from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.records.conversations import MessageStatus
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

LOCAL = {"provider": ProviderName.LLAMACPP, "start_jobs": False}
QUESTIONS = (
    "Where does my sister Ana live?",
    "What do I do on night shifts?",
    "Which instrument am I learning?",
    "What am I allergic to?",
)
TURNS = 10
BUDGET = 1500
#: Every answer is about 90 tokens, so the history overflows a few times in ten turns.
ANSWER = "Here is a fairly long answer that goes on about many things. " * 8


def is_warm_up(request) -> bool:
    return request.json.get("max_tokens") == 1


def test_the_system_prompt_is_read_when_the_assistant_opens(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Hi.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, **LOCAL) as assistant:
            await assistant.orchestrator.prompts.warmer.wait()
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Hello!")
            return assistant.orchestrator.prompts.system_prompt

    system_prompt = run(scenario())
    warm_up, turn = fake_openai.chat_requests()
    assert is_warm_up(warm_up) and not is_warm_up(turn)
    assert warm_up.json["messages"] == [{"role": "system", "content": system_prompt}]
    assert turn.json["messages"][:1] == warm_up.json["messages"]


def test_after_an_answer_the_server_reads_the_next_start_when_the_history_is_cut(
    tmp_path, fake_openai
):
    fake_openai.responder = lambda request: Reply(text=ANSWER)

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, context_budget_tokens=BUDGET, **LOCAL
        ) as assistant:
            warmer = assistant.orchestrator.prompts.warmer
            await warmer.wait()
            conversation = await assistant.conversations.create()
            for turn in range(TURNS):
                result = await assistant.orchestrator.send(
                    conversation.id, QUESTIONS[turn % len(QUESTIONS)]
                )
                assert result.status == MessageStatus.COMPLETE
                await warmer.wait()  # the user reads the answer

    run(scenario())
    requests = fake_openai.chat_requests()[1:]  # after the session's start
    cuts = warm_ups = 0
    previous = None  # the last turn's prompt and its answer: what the server read
    for before, request in zip([None, *requests], requests, strict=False):
        if is_warm_up(request):
            warm_ups += 1
            continue
        prompt = request.json["messages"]
        if previous is not None and prompt[: len(previous)] != previous:
            cuts += 1
            # The turn that cuts the history was preceded by a warm-up of its start:
            # everything but its new message.
            assert before is not None and is_warm_up(before)
            assert before.json["messages"] == prompt[:-1]
        elif previous is not None:
            assert not is_warm_up(before), "no warm-up when the next prompt starts as read"
        previous = [*prompt, {"role": "assistant", "content": ANSWER}]
    # The last answer may have prepared a cut that no turn came to use.
    assert cuts >= 2 and warm_ups == cuts + is_warm_up(requests[-1])


def test_a_turn_never_waits_for_a_warm_up(tmp_path, fake_openai):
    """The server takes the warm-up and doesn't answer: the user's turn cancels it and
    is answered."""
    loop_and_event: list = []

    def responder(body):
        if (body or {}).get("max_tokens") == 1:
            loop, arrived = loop_and_event
            loop.call_soon_threadsafe(arrived.set)
            return Reply(text="x", delay=600)
        return Reply(text="Hello to you.")

    fake_openai.responder = responder

    async def scenario():
        arrived = asyncio.Event()
        loop_and_event.extend([asyncio.get_running_loop(), arrived])
        async with running_assistant(tmp_path, fake_openai, **LOCAL) as assistant:
            warmer = assistant.orchestrator.prompts.warmer
            await arrived.wait()
            assert warmer.in_flight
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Hello!")
            assert result.status == MessageStatus.COMPLETE
            assert result.answer.content == "Hello to you."
            assert not warmer.in_flight

    run(scenario())


def test_a_server_that_bills_by_the_request_gets_no_warm_up(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Hi.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assert assistant.orchestrator.prompts.warmer is None
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Hello!")

    run(scenario())
    assert not any(is_warm_up(request) for request in fake_openai.chat_requests())
