"""On a model server that answers one request at a time, the user's turn goes first:
learning steps aside while a turn runs (its request closed, the job back in the queue)
and carries on after it."""

from __future__ import annotations

import asyncio
import json

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.headless import wait_until
from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import Reply
from tests.core.conftest import TEST_MODELS
from tests.support.aio import run

FACT = "I'm allergic to peanuts."


def llamacpp_profile(tmp_path, server) -> Profile:
    profile = Profile.at(tmp_path).ensure()
    settings = ModelSettings.for_preset(
        ProviderName.LLAMACPP, base_url=server.base_url, models=TEST_MODELS
    )
    save_model_settings(profile.settings_path, settings)
    return profile


def test_local_presets_serve_one_request_at_a_time_and_custom_and_openai_not():
    one_at_a_time = {
        name
        for name in ProviderName
        if ModelSettings.for_preset(name).serves_one_request_at_a_time()
    }
    assert one_at_a_time == {
        ProviderName.LOCAL,
        ProviderName.OLLAMA,
        ProviderName.LMSTUDIO,
        ProviderName.LLAMACPP,
    }


def test_learning_steps_aside_for_the_next_answer_and_finishes_after_it(tmp_path, fake_openai):
    slow_triage_sent = []

    def model(request: dict) -> Reply:
        reply = fake_model(request)
        if request["model"] == TEST_MODELS.triage and not slow_triage_sent:
            slow_triage_sent.append(request)
            # About 10 s of stream: still running when the next turn starts.
            reply.chunk_chars, reply.chunk_delay = 1, 0.5
        return reply

    fake_openai.responder = model
    profile = llamacpp_profile(tmp_path, fake_openai)

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides())
        try:
            seen_at_turn_end: list[int] = []
            job_news: list = []
            assistant.events.subscribe(ev.JobStatusChanged, lambda e: job_news.append(e.job))
            assistant.events.subscribe(
                ev.TurnEnded, lambda e: seen_at_turn_end.append(len(fake_openai.requests))
            )
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, FACT)
            await wait_until(lambda: slow_triage_sent)  # learning from it is under way
            busy = await assistant._jobs.list([JobStatus.RUNNING])
            assert [job.kind for job in busy] == ["critical_info"]
            requests_before = len(fake_openai.requests)
            second = await assistant.orchestrator.send(conversation.id, "What should I avoid?")
            during_turn = fake_openai.requests[requests_before : seen_at_turn_end[-1]]
            # The server sees the closed stream at its next write.
            slow = next(r for r in fake_openai.chat_requests() if r.json is slow_triage_sent[0])
            await wait_until(slow.client_disconnected.is_set, timeout=10)
            jobs = await assistant.runner.wait_for(first.job_ids + second.job_ids, timeout=30)
            facts = await assistant.memories.list()
            news = [(j.status, j.attempts) for j in job_news if j.id == busy[0].id]
            return first, second, during_turn, news, jobs, facts
        finally:
            await assistant.close()

    first, second, during_turn, news, jobs, facts = run(scenario())
    assert first.status == second.status == MessageStatus.COMPLETE
    # The slow learning request was closed as the turn began, and nothing but the
    # answer went to the server while the user waited.
    triage_of_fact = [
        r
        for r in fake_openai.chat_requests()
        if r.json["model"] == TEST_MODELS.triage
        and FACT in json.dumps(r.json)
        and call_kind(r.json) == "triage"
    ]
    assert len(triage_of_fact) == 2  # cut short, then asked again after the answer
    assert [r.json["model"] for r in during_turn] == [TEST_MODELS.chat]
    # The job went back to the queue, its interrupted attempt not counted, and ran after.
    assert news == [
        (JobStatus.PENDING, 0),
        (JobStatus.RUNNING, 1),
        (JobStatus.PENDING, 0),
        (JobStatus.RUNNING, 1),
        (JobStatus.DONE, 1),
    ]
    assert all(job.status == JobStatus.DONE for job in jobs)
    assert any("peanut" in m.content for m in facts)


def test_replies_are_streamed_and_read_whole_when_the_server_serves_one_at_a_time(
    tmp_path, fake_openai
):
    fake_openai.script(Reply(text="a whole reply"), Reply(text="cut", finish_reason=None))

    async def scenario():
        settings = ModelSettings.for_preset(
            ProviderName.LLAMACPP, base_url=fake_openai.base_url, models=TEST_MODELS
        )
        async with ModelClient(settings) as client:
            whole = await client.create_completion([{"role": "user", "content": "hi"}])
            try:
                await client.create_completion([{"role": "user", "content": "hi"}])
            except Exception as error:  # a cut reply is an error, not a short answer
                return whole, error
        return whole, None

    whole, cut = run(scenario())
    assert whole.text == "a whole reply" and whole.finish_reason == "stop"
    assert [r.json.get("stream") for r in fake_openai.chat_requests()] == [True, True]
    assert cut is not None and "before it was finished" in str(cut)


def test_with_no_turn_running_learning_is_not_held_back(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = llamacpp_profile(tmp_path, fake_openai)

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides())
        try:
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, FACT)
            jobs = await assistant.runner.wait_for(result.job_ids, timeout=30)
            return jobs, assistant.runner.paused_kinds
        finally:
            await asyncio.shield(assistant.close())

    jobs, paused = run(scenario())
    assert all(job.status == JobStatus.DONE for job in jobs)
    assert paused == frozenset()


def test_answers_are_capped_where_a_tiny_model_could_loop(tmp_path, fake_openai):
    from tests.support.assistant import running_assistant

    fake_openai.responder = fake_model
    assert ModelSettings.for_preset(ProviderName.LOCAL).resolved_answer_max_tokens() == 160
    assert ModelSettings.for_preset(ProviderName.OPENAI).resolved_answer_max_tokens() is None

    async def scenario(**overrides):
        async with running_assistant(tmp_path / str(overrides), fake_openai, **overrides) as a:
            conversation = await a.conversations.create()
            await a.orchestrator.send(conversation.id, "Hello!")
        return fake_openai.chat_requests()[-1].json

    assert run(scenario(start_jobs=False, answer_max_tokens=64))["max_tokens"] == 64
    assert "max_tokens" not in run(scenario(start_jobs=False))


def test_learning_waits_after_a_turn_and_while_the_user_types(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = llamacpp_profile(tmp_path, fake_openai)

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides())
        try:
            runner = assistant.runner
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, FACT)
            after_turn = runner.paused_kinds  # the user may ask again at once
            jobs = await runner.wait_for(result.job_ids, timeout=30)
            quiet_again = runner.paused_kinds
            runner.defer(60)  # a keystroke in the composer
            typing = runner.paused_kinds
            second = await assistant.orchestrator.send(conversation.id, "My sister lives in Rome.")
            await asyncio.sleep(0.5)  # the runner had every chance to start its jobs
            waiting = [await assistant._jobs.get(job_id) for job_id in second.job_ids]
            return after_turn, jobs, quiet_again, typing, waiting
        finally:
            await assistant.close()

    after_turn, jobs, quiet_again, typing, waiting = run(scenario())
    # Learning from imported conversations, and naming the chat, give way to the user too.
    learning = {"critical_info", "summary", "learn_imported", "title"}
    assert after_turn == learning
    assert all(job.status == JobStatus.DONE for job in jobs)  # it carried on after a while
    assert quiet_again == frozenset()
    assert typing == learning
    assert [job.status for job in waiting] == [JobStatus.PENDING, JobStatus.PENDING]


def test_one_job_at_a_time_on_a_server_that_serves_one_request_at_a_time(tmp_path, fake_openai):
    from tests.support.assistant import running_assistant

    async def concurrency(**overrides) -> int:
        async with running_assistant(tmp_path / str(overrides), fake_openai, **overrides) as a:
            return a.runner.max_concurrent

    llamacpp = {"provider": ProviderName.LLAMACPP, "start_jobs": False}
    assert run(concurrency(**llamacpp)) == 1
    assert run(concurrency(start_jobs=False)) == 2  # a custom server may serve several
