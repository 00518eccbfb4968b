"""A local server reads a prompt's known start while nobody waits (issue 22: time to
first token over ten messages): the system prompt when the assistant opens, and after
an answer the next prompt's start when the next turn cuts the history. A turn never
waits for a warm-up: it cancels it."""

from __future__ import annotations

import asyncio
import itertools
import threading

from acai_desktop.core.assistant import YIELDING_JOBS
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.llm.prompt_warmer import STEP_CHARS, step_ends
from acai_desktop.core.records import MessageStatus
from acai_desktop.core.resources import resource_text
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
#: Learning's starts are shorter than the chat's system prompt.
SYSTEM_CHARS = len(resource_text("prompts", "system.txt").strip())
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
    requests = fake_openai.chat_requests()
    warm_up, turn = requests[0], next(r for r in requests if not is_warm_up(r))
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
    requests = fake_openai.chat_requests()
    # After the session's start and learning's (read at open).
    requests = requests[next(i for i, r in enumerate(requests) if not is_warm_up(r)) :]
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
    time: read once when the assistant opens, after the chat's start, in steps of a few
    lines (each step a longer start: the server restores the one before from its cache)."""
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
    first_turn = next(i for i, r in enumerate(requests) if not is_warm_up(r))
    opening, later = requests[1:first_turn], requests[first_turn:]
    for kind in ("triage", "extraction"):
        call = next(r for r in later if call_kind(r.json) == kind)
        assert not is_warm_up(call)
        # The call's prompt starts with what the server read: only the message is new.
        assert call.json["messages"][1:] == [{"role": "user", "content": FACT}]
        system = call.json["messages"][0]["content"]
        steps = [
            r.json["messages"][0]["content"]
            for r in opening
            if r.json["model"] == call.json["model"]
            and system.startswith(r.json["messages"][0]["content"])
        ]
        assert steps[-1] == system
        assert len(steps) > 2
        for before, after in itertools.pairwise(steps):
            assert after.startswith(before) and 0 < len(after) - len(before) <= STEP_CHARS
    assert not any(is_warm_up(r) for r in later), "read once"
    assert any("peanut" in fact.content for fact in facts)


def test_a_learning_start_a_turn_interrupts_is_read_again_after_the_turn(tmp_path, fake_openai):
    """A turn cancels the step of learning's start under way (the server throws away what
    it read of a reply it didn't finish); after the turn, reading goes on from that step,
    the steps before it not read again, and once whole it is never read again."""
    learning_steps: list[str] = []
    loop_and_event: list = []

    def responder(body):
        if is_warm_up_body(body) and len(body["messages"][0]["content"]) < SYSTEM_CHARS:
            learning_steps.append(body["messages"][0]["content"])
            if len(learning_steps) == 2:
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
            during_turn = len(learning_steps)
            await warmer.wait()  # the user reads the answer
            assert warmer.standing == []
            after_turn = len(learning_steps)
            await assistant.orchestrator.send(conversation.id, "And now?")
            await warmer.wait()
            return during_turn, after_turn

    during_turn, after_turn = run(scenario())
    first, interrupted = learning_steps[:2]
    assert during_turn == 2
    assert learning_steps[2] == interrupted  # read again, from the step cut short
    assert first not in learning_steps[2:]
    assert after_turn == len(learning_steps), "nothing is read again after the next turn"


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


def test_a_start_is_read_in_steps_that_end_after_a_line_or_a_word():
    text = "First line of the prompt.\nSecond line.\n" + '{"a":"b","c":"d"}' * 4
    ends = step_ends(text, 0, step=30)
    assert ends[-1] == len(text)
    assert text[: ends[0]] == "First line of the prompt.\n"
    assert all(0 < b - a <= 30 for a, b in zip([0, *ends], ends, strict=False))
    assert all(text[end - 1] in "\n ," for end in ends[:-1])
    assert step_ends(text, ends[1], step=30) == ends[2:]
    assert step_ends(text, len(text)) == []


def is_warm_up_body(body) -> bool:
    return (body or {}).get("max_tokens") == 1
