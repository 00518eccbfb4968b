"""A local server reads a prompt's known start while nobody waits (issue 22: time to
first token over ten messages): the system prompt when the assistant opens, and after
an answer the next prompt's start when the next turn cuts the history. A turn never
waits for a warm-up: it cancels it."""

from __future__ import annotations

import asyncio
import threading

from acai_desktop.core.assistant import YIELDING_JOBS
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.records import MessageStatus
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.fake_model import call_kind, fake_model
from tests.support.fake_openai import Reply

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
FACT = "I'm allergic to peanuts."
ANSWER = "Here is a fairly long answer that goes on about many things. " * 8


def is_warm_up(request) -> bool:
    return request.json.get("max_tokens") == 1


def test_the_system_prompt_is_read_when_the_assistant_opens(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Hi.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, **LOCAL) as assistant:
            await assistant.orchestrator.warmer.wait()
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Hello!")
            return assistant.orchestrator.system_prompt

    system_prompt = run(scenario())
    warm_up, *_learning_starts, turn = fake_openai.chat_requests()
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
            warmer = assistant.orchestrator.warmer
            await warmer.wait()
            conversation = await assistant.conversations.create()
            for turn in range(TURNS):
                result = await assistant.orchestrator.send(
                    conversation.id, QUESTIONS[turn % len(QUESTIONS)]
                )
                assert result.status == MessageStatus.COMPLETE
                await warmer.wait()  # the user reads the answer

    run(scenario())
    requests = fake_openai.chat_requests()[3:]  # after the session's and learning's starts
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
            warmer = assistant.orchestrator.warmer
            await arrived.wait()
            assert warmer.in_flight
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Hello!")
            assert result.status == MessageStatus.COMPLETE
            assert result.answer.content == "Hello to you."

    run(scenario())


def test_a_server_that_bills_by_the_request_gets_no_warm_up(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Hi.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assert assistant.orchestrator.warmer is None
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Hello!")

    run(scenario())
    assert not any(is_warm_up(request) for request in fake_openai.chat_requests())


def test_learning_calls_start_as_read_at_open_so_each_reads_only_its_message(tmp_path, fake_openai):
    """Each triage and extraction call begins with its system message, the same every
    time: read once when the assistant opens, after the chat's start."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, **LOCAL) as assistant:
            await assistant.orchestrator.warmer.wait()
            assert assistant.orchestrator.warmer.standing == []
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, FACT)
            await assistant.critical_info.process_message(result.user_message.id)
            return await assistant.memories.list()

    facts = run(scenario())
    requests = fake_openai.chat_requests()
    opening = requests[:3]
    assert all(is_warm_up(request) for request in opening)
    assert [call_kind(r.json) for r in opening] == ["chat", "triage", "extraction"]
    for warm_up in opening[1:]:
        kind = call_kind(warm_up.json)
        call = next(r for r in requests[3:] if call_kind(r.json) == kind)
        assert not is_warm_up(call)
        assert call.json["model"] == warm_up.json["model"]
        # The call's prompt starts with what the server read: only the message is new.
        assert warm_up.json["messages"] == call.json["messages"][:1]
        assert call.json["messages"][1:] == [{"role": "user", "content": FACT}]
    assert any("peanut" in fact.content for fact in facts)


def test_a_learning_start_a_turn_interrupts_is_read_again_after_the_turn(tmp_path, fake_openai):
    """A turn cancels the warm-up of triage's start (the server throws away what it read
    of a reply it didn't finish); after the turn it is read again, then never again."""
    triage_warm_ups: list = []
    loop_and_event: list = []

    def responder(body):
        if is_warm_up_body(body) and call_kind(body) == "triage":
            triage_warm_ups.append(body)
            if len(triage_warm_ups) == 1:
                loop, arrived = loop_and_event
                loop.call_soon_threadsafe(arrived.set)
                return Reply(text="x", delay=600)
        return fake_model(body)

    fake_openai.responder = responder

    async def scenario():
        arrived = asyncio.Event()
        loop_and_event.extend([asyncio.get_running_loop(), arrived])
        async with running_assistant(tmp_path, fake_openai, **LOCAL) as assistant:
            warmer = assistant.orchestrator.warmer
            await arrived.wait()
            assert warmer.standing == ["triage", "extraction"]
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Hello!")
            assert result.status == MessageStatus.COMPLETE
            await warmer.wait()  # the user reads the answer
            assert warmer.standing == []
            await assistant.orchestrator.send(conversation.id, "And now?")
            await warmer.wait()

    run(scenario())
    kinds = [(call_kind(r.json), is_warm_up(r)) for r in fake_openai.chat_requests()]
    assert kinds == [
        ("chat", True),  # the system prompt
        ("triage", True),  # cut short by the turn
        ("chat", False),
        ("triage", True),  # read again after the turn, whole
        ("extraction", True),
        ("chat", False),  # nothing is read again after the next turn
    ]


def test_learning_waits_while_a_warm_up_has_the_server(tmp_path, fake_openai):
    """Two requests at once on a one-slot server cut each other short: jobs that give
    way to turns also wait for a warm-up, and go on when it ends."""
    release = threading.Event()

    def responder(body):
        if is_warm_up_body(body):
            release.wait(timeout=60)
        return fake_model(body)

    fake_openai.responder = responder

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, provider=ProviderName.LLAMACPP) as (
            assistant
        ):
            warmer, runner = assistant.orchestrator.warmer, assistant.runner
            assert warmer.in_flight
            assert runner.paused_kinds == YIELDING_JOBS
            release.set()
            await warmer.wait()
            assert runner.paused_kinds == frozenset()

    run(scenario())


def is_warm_up_body(body) -> bool:
    return (body or {}).get("max_tokens") == 1
