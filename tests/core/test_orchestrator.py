"""One turn end to end: real store, real retrieval, real SDK against the scripted server."""

import asyncio

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import MessageDelta
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.turns.turn_log import MAX_MESSAGE_CHARS
from acai_lab.scripted_model import call_counts, fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

SEED = [
    "My name is John, and I'm a big fan of sci-fi novels.",
    "I prefer Python for backend development.",
]


async def _turn(assistant, conversation_id, text):
    result = await assistant.orchestrator.send(conversation_id, text)
    if result.job_ids:
        await assistant.runner.wait_for(result.job_ids, timeout=30)
    return result


def test_seed_scenario_retrieves_the_python_preference_as_a_source(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            for text in SEED:
                await _turn(assistant, conversation.id, text)
            for text in ("okay", "thanks", "got it"):
                await _turn(assistant, conversation.id, text)
            later = await assistant.conversations.create()
            result = await _turn(assistant, later.id, "What language should I use for my backend?")
            recorded = await assistant._provenance.sources_of_answer(result.answer.id)
            jobs = await assistant._jobs.list()
            return result, recorded, jobs

    result, recorded, jobs = run(scenario())
    assert result.status == MessageStatus.COMPLETE
    python = [
        used
        for used in result.memories_used
        if "Python" in result.used_contents.get(used.memory_id, "")
    ]
    assert python, result.used_contents
    assert python[0].rank == 1
    assert "Python" in result.answer.content
    assert {(s.memory_id, s.rank) for s in recorded} == {
        (u.memory_id, u.rank) for u in result.memories_used
    }
    assert all(job.status == JobStatus.DONE for job in jobs)
    counts = call_counts(fake_openai)
    assert counts["chat"] == 6
    assert counts["triage"] == 3  # the two seed messages and the question; not the small talk
    assert counts["extraction"] == 2


def test_streaming_emits_one_event_per_chunk_and_saves_the_answer(tmp_path, fake_openai):
    fake_openai.script(Reply(text="Hello there, nice to meet you!"))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            deltas: list[MessageDelta] = []
            assistant.events.subscribe(ev.MessageUpdated, lambda e: deltas.append(e.delta))
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Hi!")
            stored = await assistant.conversations.messages(conversation.id)
            return result, deltas, stored

    _, deltas, stored = run(scenario())
    chunks = [d for d in deltas if d.delta]
    assert len(chunks) > 1
    assert "".join(d.delta for d in chunks) == "Hello there, nice to meet you!"
    assert chunks[-1].content == "Hello there, nice to meet you!"
    assert deltas[-1].status == MessageStatus.COMPLETE
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "complete")]
    assert stored[1].content == "Hello there, nice to meet you!"
    assert stored[1].plan["task_type"] == "small_talk"  # the plan the answer was made by


def test_stop_keeps_the_partial_answer_and_closes_the_stream(tmp_path, fake_openai):
    fake_openai.script(Reply(text="one two three four five six seven eight", chunk_delay=0.2))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first_chunk = asyncio.Event()
            assistant.events.subscribe(
                ev.MessageUpdated, lambda e: e.delta.delta and first_chunk.set()
            )
            task = asyncio.create_task(assistant.orchestrator.send(conversation.id, "Count"))
            await asyncio.wait_for(first_chunk.wait(), 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            jobs = await assistant._jobs.list()
            return await assistant.conversations.messages(conversation.id), jobs

    stored, jobs = run(scenario())
    assert sorted(job.kind for job in jobs) == ["critical_info", "summary", "title"]
    user, answer = stored
    assert user.content == "Count" and user.status == MessageStatus.COMPLETE
    assert answer.status == MessageStatus.STOPPED
    assert answer.content and answer.content != "one two three four five six seven eight"
    assert fake_openai.chat_requests()[-1].client_disconnected.wait(5)


def test_model_failure_keeps_the_message_records_the_error_and_retry_works(tmp_path, fake_openai):
    # The client retries a failed stream once, so two 500s make one failed turn.
    fake_openai.script(*[Reply(status=500, retry_after=0.01)] * 2, Reply(text="Recovered."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            news: list = []
            assistant.events.subscribe(ev.MessageUpdated, news.append)
            assistant.events.subscribe(ev.AnswerFinished, news.append)
            conversation = await assistant.conversations.create()
            failed = await assistant.orchestrator.send(conversation.id, "Are you there?")
            after_failure = await assistant.conversations.messages(conversation.id)
            failure_news = list(news)
            retried = await assistant.orchestrator.retry(failed.answer.id)
            after_retry = await assistant.conversations.messages(conversation.id)
            return failed, after_failure, retried, after_retry, failure_news, news

    failed, after_failure, retried, after_retry, failure_news, news = run(scenario())
    assert failed.status == MessageStatus.ERROR
    assert "server" in failed.answer.error.lower()
    # The news of the failure carries its reason: the last delta and the finish alike.
    last_delta, finished = failure_news[-2:]
    assert last_delta.delta.status == MessageStatus.ERROR
    assert last_delta.delta.error == failed.answer.error
    assert finished == ev.AnswerFinished(failed.answer)
    assert finished.error == failed.answer.error
    # A retry starts afresh (no error on its first delta) and finishes without one.
    assert news[len(failure_news)].delta.error is None
    assert news[-1].message.status == MessageStatus.COMPLETE and news[-1].error is None
    assert [m.content for m in after_failure] == ["Are you there?", ""]
    assert retried.status == MessageStatus.COMPLETE
    # The failed turn still queued the processors (and the title) for the saved message;
    # the retry did not.
    assert len(failed.job_ids) == 3 and retried.job_ids == []
    assert [m.content for m in after_retry] == ["Are you there?", "Recovered."]
    assert after_retry[1].id == failed.answer.id and after_retry[1].error is None


def test_dropped_stream_is_an_error_with_the_partial_text_kept(tmp_path, fake_openai):
    fake_openai.script(*[Reply(text="alpha beta gamma delta epsilon", drop_after_chunks=2)] * 3)

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Tell me")
            return result, await assistant.conversations.messages(conversation.id)

    result, stored = run(scenario())
    assert result.status == MessageStatus.ERROR
    assert stored[0].content == "Tell me"
    assert stored[1].status == MessageStatus.ERROR and stored[1].error


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("x" * (MAX_MESSAGE_CHARS + 1), "limit"),
        ("a\x00b", "NUL"),
    ],
)
def test_bad_messages_are_refused_before_anything_is_written(tmp_path, fake_openai, text, why):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            with pytest.raises(InvalidInputError, match=why):
                await assistant.orchestrator.send(conversation.id, text)
            return await assistant.conversations.messages(conversation.id)

    assert run(scenario()) == []
    assert fake_openai.chat_requests() == []


def test_temporary_conversation_runs_no_processor(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create(temporary=True)
            result = await assistant.orchestrator.send(conversation.id, SEED[1])
            return result, await assistant._jobs.list(), await assistant.memories.list()

    result, jobs, memories = run(scenario())
    assert result.status == MessageStatus.COMPLETE
    assert result.job_ids == [] and jobs == [] and memories == []
