"""Background learning on the built-in model runs on a server of its own, at the lowest
priority, suspended while a turn is answered (core/models/learning_server.py).

The tests marked ``local_model`` start the real llama-cpp-python servers with the bundled
SmolLM2-135M GGUF. None of them measures time: they check what happened, and in which
order (the servers' request logs, the job's news, the processes' states).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.profile_jobs import YIELDING_JOBS
from acai_desktop.core.models import start as model_start_module
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.learning_server import PauseDuringTurns, learning_server_like
from acai_desktop.core.models.local_server import LocalModelServer, can_suspend
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.headless import wait_until
from tests.support.aio import run
from tests.support.server_processes import server_of_a_killed_app, stand_in_python, wait_gone

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SIGSTOP, SCHED_IDLE and PDEATHSIG are Linux's"
)

#: A message long enough that reading learning's prompt of it takes a while (the
#: extraction reads up to 4,000 characters of it), with a fact worth learning.
LONG_MESSAGE = "I'm allergic to peanuts, and I live in Lisbon with my sister Ana. " * 40


def _state(pid: int) -> str:
    """The process's state letter from /proc (T: stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]


def _chat_requests(log_path: Path) -> int:
    return log_path.read_text(errors="replace").count("POST /v1/chat/completions")


@pytest.mark.local_model
def test_a_turn_does_not_wait_for_learning_in_progress_on_the_built_in_model(tmp_path, monkeypatch):
    """A learning call with a long prompt is under way when the user sends: the turn
    goes to the chat's server, which never sees a learning request, and its answer
    starts while learning's call is still open; the job is not cut short and redone.

    The learning server runs at normal priority here: this test is about where requests
    go. At the lowest priority, on a machine whose every core is busy, learning waits
    for spare CPU by design, and its call would not end within the test's time (the
    priority has tests of its own, below)."""

    def learning_server_at_normal_priority(chat_server, log_path=None):
        server = learning_server_like(chat_server, log_path=log_path)
        server.background = False
        return server

    monkeypatch.setattr(
        model_start_module, "learning_server_like", learning_server_at_normal_priority
    )
    profile = Profile.at(tmp_path).ensure()
    save_model_settings(profile.settings_path, ModelSettings.for_preset(ProviderName.LOCAL))

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides())
        # The model's triage and extraction are the long learning call this test needs:
        # the path of a model file the user chose (the bundled model's facts come by
        # rules, with no call: plain_statements.py).
        assistant.critical_info.facts_by_rules = False
        try:
            news: list = []
            at_first_token: list = []
            assistant.events.subscribe(ev.JobStatusChanged, lambda e: news.append(e.job))

            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, LONG_MESSAGE)
            learning_job = next(
                job
                for job in await assistant._jobs.list()
                if job.kind == "critical_info" and job.id in first.job_ids
            )
            await wait_until(
                lambda: any(
                    j.id == learning_job.id and j.status == JobStatus.RUNNING for j in news
                ),
                timeout=120,
            )
            chat_log = assistant.local_server.log_path
            chat_posts_before = _chat_requests(chat_log)

            def on_update(event: ev.MessageUpdated) -> None:
                if event.delta.delta and not at_first_token:
                    # Is the job's handler (its model call) still running at this moment?
                    at_first_token.append(learning_job.id in assistant.runner._in_handler)

            assistant.events.subscribe(ev.MessageUpdated, on_update)
            second = await assistant.orchestrator.send(conversation.id, "What should I avoid?")
            jobs = await assistant.runner.wait_for(first.job_ids + second.job_ids, timeout=600)
            return (
                first,
                second,
                learning_job,
                news,
                at_first_token,
                _chat_requests(chat_log) - chat_posts_before,
                jobs,
                assistant.learning_server,
                assistant.local_server.served_model,
            )
        finally:
            await assistant.close()

    (
        first,
        second,
        job,
        news,
        in_handler_at_first_token,
        chat_posts,
        jobs,
        learning_server,
        chat_model,
    ) = run(scenario())
    assert first.status == second.status == MessageStatus.COMPLETE
    # The answer's first words came while learning's call was still open...
    assert in_handler_at_first_token == [True]
    # ...which was neither cut short nor asked again: it ran once, to the end.
    assert [j.status for j in news if j.id == job.id] == [
        JobStatus.PENDING,
        JobStatus.RUNNING,
        JobStatus.DONE,
    ]
    assert all(j.status == JobStatus.DONE for j in jobs)
    # The chat's server got the turn (and at most the warm-ups after the two answers),
    # the learning server the learning calls (triage at least).
    assert chat_posts <= 3
    assert learning_server is not None and _chat_requests(learning_server.log_path) >= 1
    # Both serve the bundled model's faster copy in the profile (fast_model_copy.py), one
    # file, so they share its pages.
    assert chat_model == learning_server.served_model
    assert chat_model.parent == Profile.at(tmp_path).models_dir
    assert chat_model.name.endswith(".Q8_0.gguf")


@linux_only
@pytest.mark.local_model
def test_the_learning_server_runs_at_idle_priority_and_the_chat_server_does_not():
    async def scenario():
        async with (
            LocalModelServer(background=True) as learning,
            LocalModelServer() as chat,
        ):
            policies = {
                name: {
                    os.sched_getscheduler(int(thread))
                    for thread in os.listdir(f"/proc/{server.pid}/task")
                }
                for name, server in (("learning", learning), ("chat", chat))
            }
            return policies

    policies = run(scenario())
    assert policies["learning"] == {os.SCHED_IDLE}  # every thread, llama.cpp's included
    assert os.SCHED_IDLE not in policies["chat"]


@linux_only
@pytest.mark.local_model
def test_a_turn_suspends_the_learning_server_until_its_end(tmp_path):
    async def scenario():
        events = EventBus()
        async with LocalModelServer(background=True) as server:
            pause = PauseDuringTurns(server, events)
            try:
                events.emit(ev.TurnStarted(1))
                stopped = await _reaches_state(server.pid, "T")
                events.emit(ev.TurnEnded(1))
                resumed = await _leaves_state(server.pid, "T")
            finally:
                pause.close()
            return stopped, resumed

    assert can_suspend()
    assert run(scenario()) == (True, True)


@linux_only
@pytest.mark.local_model
def test_a_long_turn_suspends_the_learning_server_only_up_to_the_limit():
    async def scenario():
        events = EventBus()
        async with LocalModelServer(background=True) as server:
            pause = PauseDuringTurns(server, events, limit_s=0.2)
            try:
                events.emit(ev.TurnStarted(1))
                stopped = await _reaches_state(server.pid, "T")
                resumed_in_the_turn = await _leaves_state(server.pid, "T")
                events.emit(ev.TurnEnded(1))
            finally:
                pause.close()
            return stopped, resumed_in_the_turn, server.suspended

    assert run(scenario()) == (True, True, False)


@linux_only
@pytest.mark.local_model
def test_a_suspended_server_is_resumed_and_ends_gracefully_on_quit():
    async def scenario():
        server = LocalModelServer(background=True, stop_grace=30)
        await server.start()
        process = server._process
        assert server.suspend()
        assert await _reaches_state(server.pid, "T")
        await server.stop()
        return process.returncode

    # Terminated (SIGTERM honoured), not killed after the grace period: it was resumed.
    assert run(scenario()) != -signal.SIGKILL


@linux_only
@pytest.mark.local_model
def test_a_suspended_learning_server_dies_with_the_app(tmp_path):
    server_pid = server_of_a_killed_app(tmp_path, background=True, suspend=True)
    # No thread of a stopped process runs: only the kernel (PDEATHSIG) can end it.
    assert wait_gone(server_pid, 15)


def test_the_learning_server_asks_for_the_lowest_priority_and_keeps_no_prompt_states():
    chat = LocalModelServer("model.gguf", n_ctx=2048)
    learning = learning_server_like(chat)
    chat._port = learning._port = 1
    command = learning.command(Path("model.gguf"))
    assert command[command.index("--parent-pid") + 2] == "--background"
    assert command[command.index("--cache") + 1] == "False"
    assert command[command.index("--n_ctx") + 1] == "2048"  # a summary's prompt fits
    chat_command = chat.command(Path("model.gguf"))
    assert "--background" not in chat_command
    assert chat_command[chat_command.index("--cache") + 1] == "True"
    # Neither keeps every prompt token's logits (the app asks for no logprobs).
    for args in (command, chat_command):
        assert args[args.index("--logits_all") + 1] == "False"


def test_a_server_that_is_not_running_is_not_suspended():
    server = LocalModelServer("model.gguf", background=True)
    assert not server.suspend()
    server.resume()  # nothing to resume: no error
    assert not server.suspended


async def _reaches_state(pid: int, state: str, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _state(pid) == state:
            return True
        await asyncio.sleep(0.02)
    return False


async def _leaves_state(pid: int, state: str, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _state(pid) != state:
            return True
        await asyncio.sleep(0.02)
    return False


@pytest.mark.local_model
def test_when_the_learning_server_cant_start_learning_shares_the_chat_server(tmp_path, monkeypatch):
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(profile.settings_path, ModelSettings.for_preset(ProviderName.LOCAL))
    failing = stand_in_python(tmp_path, "import sys; print('out of memory'); sys.exit(3)")

    def learning_server_that_fails(chat, log_path=None):
        return LocalModelServer(chat.model_path, python=failing, background=True)

    monkeypatch.setattr(model_start_module, "learning_server_like", learning_server_that_fails)

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides())
        try:
            return (
                assistant.learning_server,
                assistant.critical_info.client is assistant.client,
                assistant.runner.yield_to_turns,
            )
        finally:
            await assistant.close()

    learning_server, learning_on_chat_client, yielding = run(scenario())
    assert learning_server is None
    assert learning_on_chat_client
    assert yielding == YIELDING_JOBS  # steps aside for turns, as before


@pytest.mark.local_model
def test_where_learning_is_the_foreground_work_it_shares_the_chat_server(tmp_path):
    # A one-shot chat --wait-jobs or jobs run: a second server at the lowest priority
    # would wait for spare CPU that a busy machine never has.
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(profile.settings_path, ModelSettings.for_preset(ProviderName.LOCAL))

    async def scenario():
        assistant = await open_assistant(profile, ModelOverrides(), learning_beside_turns=False)
        try:
            return (
                assistant.learning_server,
                assistant.critical_info.client is assistant.client,
                assistant.runner.yield_to_turns,
                assistant.critical_info.facts_by_rules,
            )
        finally:
            await assistant.close()

    learning_server, learning_on_chat_client, yielding, facts_by_rules = run(scenario())
    assert facts_by_rules  # the bundled model picks no facts (plain_statements.py)
    assert learning_server is None
    assert learning_on_chat_client
    assert yielding == YIELDING_JOBS
    assert not (profile.logs_dir / "learning-model.log").exists()
