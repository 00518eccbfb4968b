"""Issue 20, item 3: every model call has a deadline for the whole of it.

The read timeout only bounds silence, so a server that keeps the connection busy without
answering — keep-alive comments, a reply trickling in — used to hold a chat or a job for
ever. Through the real openai SDK against the fault-injecting scripted server; the
deadlines are small and the faults never end, so the deadline is always what ends the
call, however loaded the machine (the read timeout is set far above the deadlines).
"""

from __future__ import annotations

import asyncio

import pytest

from acai_desktop.core.errors import ModelTimeoutError
from acai_desktop.core.models.call_limits import ClientTimeouts
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run
from tests.support.assistant import running_assistant

HELLO = [{"role": "user", "content": "Hello"}]
#: Far above every deadline below: if a call ends, the deadline ended it.
PATIENT = ClientTimeouts(connect=5.0, read=120.0, write=5.0, pool=5.0)
#: Before the deadlines existed these calls never ended: the test fails there instead.
BOUND_S = 60


def patient_client(server, **settings) -> ModelClient:
    return client_for(server, timeouts=PATIENT, max_retries=0, stream_max_retries=0, **settings)


def test_a_stream_of_keep_alive_comments_ends_at_the_first_token_deadline(fake_openai):
    fake_openai.script(Reply(keep_alive_every=0.05))
    received: list[str] = []

    async def scenario():
        async with patient_client(fake_openai, first_token_timeout_seconds=0.3) as client:
            async for delta in client.stream_chat(HELLO):
                received.append(delta)

    with pytest.raises(ModelTimeoutError) as ended:
        run(asyncio.wait_for(scenario(), BOUND_S))
    assert "did not start its answer within 0.3 s" in str(ended.value)
    assert "first_token_timeout_seconds" in str(ended.value)
    assert received == []
    # The stream was closed, not left open: the server's next keep-alive finds no one.
    assert fake_openai.chat_requests()[0].client_disconnected.wait(timeout=BOUND_S)


def test_an_answer_that_never_ends_is_stopped_and_what_came_is_kept(fake_openai):
    fake_openai.script(Reply(text="and on", trickle_every=0.02))
    received: list[str] = []

    async def scenario():
        client = patient_client(fake_openai, answer_timeout_seconds=0.5)
        async with client:
            async for delta in client.stream_chat(HELLO):
                received.append(delta)

    with pytest.raises(ModelTimeoutError) as ended:
        run(asyncio.wait_for(scenario(), BOUND_S))
    assert "was still coming after 0.5 s and was stopped there" in str(ended.value)
    assert received and set(received) <= {"and", " on"}


def test_a_reply_trickling_a_byte_at_a_time_ends_at_the_reply_deadline(fake_openai):
    fake_openai.script(Reply(trickle_every=0.05))

    async def scenario():
        async with patient_client(fake_openai, reply_timeout_seconds=0.3) as client:
            await client.complete(HELLO, role="triage")

    with pytest.raises(ModelTimeoutError) as ended:
        run(asyncio.wait_for(scenario(), BOUND_S))
    assert "did not finish its reply within 0.3 s" in str(ended.value)
    assert fake_openai.chat_requests()[0].client_disconnected.wait(timeout=BOUND_S)


def test_the_deadlines_leave_ordinary_calls_alone(fake_openai):
    fake_openai.script(Reply(text="Quick and whole."), Reply(text="Also whole."))

    async def scenario():
        async with client_for(fake_openai) as client:
            streamed = [d async for d in client.stream_chat(HELLO)]
            return "".join(streamed), await client.complete(HELLO)

    assert run(scenario()) == ("Quick and whole.", "Also whole.")


def test_a_chat_turn_held_by_keep_alives_fails_clearly_and_the_next_one_works(
    tmp_path, fake_openai
):
    streams: list[dict] = []

    def held_then_fine(body: dict) -> Reply:
        if body.get("stream"):
            streams.append(body)
            if len(streams) == 1:
                return Reply(keep_alive_every=0.05)
        return fake_model(body)

    fake_openai.responder = held_then_fine

    async def scenario():
        async with running_assistant(
            tmp_path / "profile", fake_openai, start_jobs=False, first_token_timeout_seconds=0.3
        ) as assistant:
            conversation = await assistant.conversations.create()
            held = await assistant.orchestrator.send(conversation.id, "Hello there")
            retried = await assistant.orchestrator.retry(held.answer.id)
            return held.answer, retried.answer

    held, retried = run(asyncio.wait_for(scenario(), BOUND_S))
    assert held.status == MessageStatus.ERROR
    assert "did not start its answer within 0.3 s" in held.error
    assert retried.status == MessageStatus.COMPLETE and retried.content


def test_a_chat_answer_cut_at_the_deadline_keeps_its_words(tmp_path, fake_openai):
    fake_openai.responder = lambda body: (
        Reply(text="Tea is", trickle_every=0.02) if body.get("stream") else fake_model(body)
    )

    async def scenario():
        async with running_assistant(
            tmp_path / "profile", fake_openai, start_jobs=False, answer_timeout_seconds=0.5
        ) as assistant:
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Tell me about tea")
            return await assistant.conversations.get_message(result.answer.id)

    answer = run(asyncio.wait_for(scenario(), BOUND_S))
    assert answer.status == MessageStatus.ERROR
    assert "the part that arrived is kept" in answer.error
    assert answer.content.startswith("Tea is")


def test_a_learning_job_whose_reply_trickles_fails_its_attempt_with_the_reason(
    tmp_path, fake_openai
):
    fake_openai.responder = lambda body: (
        fake_model(body) if body.get("stream") else Reply(trickle_every=0.05)
    )

    async def scenario():
        async with running_assistant(
            tmp_path / "profile", fake_openai, reply_timeout_seconds=0.3
        ) as assistant:
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "I live in Lisbon.")
            [job_id] = [j.id for j in await assistant._jobs.list() if j.kind == "critical_info"]
            job = await assistant._jobs.get(job_id)
            while job.last_error is None:  # the first attempt's outcome, however long
                await asyncio.sleep(0.05)
                job = await assistant._jobs.get(job_id)
            return result, job

    result, job = run(asyncio.wait_for(scenario(), BOUND_S))
    assert result.answer.status == MessageStatus.COMPLETE
    assert job.status in (JobStatus.PENDING, JobStatus.RUNNING, JobStatus.FAILED)
    assert "ModelTimeoutError" in job.last_error
    assert "did not finish its reply within 0.3 s" in job.last_error
