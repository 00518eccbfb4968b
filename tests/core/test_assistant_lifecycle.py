"""Opening and closing the whole assistant: background re-embedding, clean shutdown."""

import asyncio
import sqlite3
import subprocess
import sys

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.errors import ModelSettingsError, StoreError
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.chat_model import NoModelError
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.settings import load_model_settings
from acai_desktop.core.profile.data import open_profile_data
from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.paths import Profile
from tests.support.aio import run
from tests.support.assistant import configure_profile


def test_memories_from_another_embedder_are_reembedded_in_the_background(tmp_path, fake_openai):
    profile = configure_profile(tmp_path, fake_openai)

    async def first_run():
        assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        try:
            for text in ("I like green tea", "My sister lives in Oslo", "I run on Sundays"):
                await assistant.memories.remember(text, explicit=True)
            await assistant.upkeep
        finally:
            await assistant.close()

    run(first_run())
    # As if these vectors had come from an embedder the user has since switched away from.
    with sqlite3.connect(profile.database_path) as db:
        db.execute("UPDATE memories SET embedding_model = 'provider:old-model'")

    async def second_run():
        events = EventBus()
        progress = []
        events.subscribe(ev.EmbeddingProgress, progress.append)
        assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False, events=events)
        try:
            indexed_at_start = len(assistant.memories.index)
            redone = await asyncio.wait_for(assistant.upkeep, 30)
            found = await assistant.retriever.search("Where does my sister live?", k=1)
            return indexed_at_start, redone, progress, len(assistant.memories.index), found
        finally:
            await assistant.close()

    indexed_at_start, redone, progress, indexed_after, found = run(second_run())
    assert indexed_at_start == 0  # start-up did not wait for the re-embedding
    assert redone == 3 and indexed_after == 3
    assert progress[0] == ev.EmbeddingProgress(0, 3) and progress[-1] == ev.EmbeddingProgress(3, 3)
    assert found[0].memory.content == "My sister lives in Oslo"
    with sqlite3.connect(profile.database_path) as db:
        models = {row[0] for row in db.execute("SELECT embedding_model FROM memories")}
    assert models == {"wordllama-l2_supercat-256"}


def test_one_running_assistant_per_profile(tmp_path, fake_openai):
    profile = configure_profile(tmp_path, fake_openai)

    async def scenario():
        first = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        try:
            with pytest.raises(StoreError, match="already open in another ACAI Desktop"):
                await open_assistant(profile, ModelOverrides(), start_jobs=False)
            # Another process is refused too, with the same message and no traceback.
            other = subprocess.run(
                [sys.executable, "-m", "acai_desktop", "chat", "--data-dir",
                 str(profile.data_dir), "hello"],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
        finally:
            await first.close()
        second = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        await second.close()
        return other

    other = run(scenario())
    assert other.returncode == 2
    assert "already open in another ACAI Desktop" in other.stderr
    assert "Traceback" not in other.stderr


def _profile_with_streaming_answer(tmp_path) -> tuple[Profile, int]:
    """A profile whose last answer was left streaming (the app was killed mid-answer) and
    whose settings file is damaged."""
    profile = Profile.at(tmp_path).ensure()

    async def write() -> int:
        data = await open_profile_data(profile)
        try:
            conversation = await data.conversations.create()
            await data.conversations.add_message(conversation.id, "user", "hello")
            answer = await data.conversations.add_message(
                conversation.id, "assistant", "half an ans", status="streaming"
            )
            return answer.id
        finally:
            await data.aclose()

    answer_id = run(write())
    profile.settings_path.write_text("{ this is not json", encoding="utf-8")
    return profile, answer_id


def test_damaged_settings_still_wait_for_the_profile_lock(tmp_path):
    """Another holder of the profile (a running window) is respected even when the model
    settings can't be read: no answer of its is marked stopped behind its back."""
    profile, answer_id = _profile_with_streaming_answer(tmp_path)
    holder = ProfileLock(profile.data_dir).acquire()
    try:
        with pytest.raises(StoreError, match="already open in another ACAI Desktop"):
            run(open_assistant(profile, start_jobs=False, model_required=False))
        with pytest.raises(StoreError, match="already open in another ACAI Desktop"):
            run(open_assistant(profile, start_jobs=False))
        with sqlite3.connect(profile.database_path) as db:
            (status,) = db.execute(
                "SELECT status FROM messages WHERE id = ?", (answer_id,)
            ).fetchone()
        assert status == "streaming"
    finally:
        holder.release()


def settings_error_of(profile: Profile) -> ModelSettingsError:
    """The error the damaged settings file gives on its own."""
    try:
        load_model_settings(profile.settings_path)
    except ModelSettingsError as error:
        return error
    raise AssertionError("the settings file was readable")


def test_without_a_usable_model_the_assistant_opens_with_a_no_model_client(tmp_path):
    profile, answer_id = _profile_with_streaming_answer(tmp_path)

    async def scenario():
        with pytest.raises(ModelSettingsError):
            await open_assistant(profile, start_jobs=False)
        assistant = await open_assistant(profile, start_jobs=False, model_required=False)
        try:
            # Held while open, like any assistant.
            with pytest.raises(StoreError, match="already open in another ACAI Desktop"):
                ProfileLock(profile.data_dir).acquire()
            problem = assistant.model_problem
            assert isinstance(problem, NoModelError)
            assert isinstance(problem.cause, ModelSettingsError)
            assert problem.next_step.startswith("Open Settings")
            assert assistant.model_name is None
            assert await assistant.upkeep == 0  # nothing re-embedded without a model
            answer = await assistant.conversations.get_message(answer_id)
            with pytest.raises(NoModelError):
                await assistant.client.complete([{"role": "user", "content": "hi"}])
            result = await assistant.orchestrator.send(answer.conversation_id, "Still there?")
            return answer.status, result.status, result.answer.error
        finally:
            await assistant.close()

    recovered, status, error = run(scenario())
    assert recovered == "stopped"  # recovered under the lock
    assert status == "error"
    assert error == str(settings_error_of(profile))


def test_without_a_model_documents_are_still_indexed_and_model_jobs_wait(tmp_path):
    """Reading, chunking and embedding a document needs no model (the embedder is
    offline), so the job runner runs those jobs; learning from messages waits."""
    profile, _answer_id = _profile_with_streaming_answer(tmp_path)
    notes = tmp_path / "notes.md"
    notes.write_text("# Garden\n\nThe tomatoes go in the south bed in May.\n", encoding="utf-8")

    async def scenario():
        assistant = await open_assistant(profile, model_required=False)
        try:
            assert assistant.model_problem is not None
            waiting = await assistant.runner.enqueue("critical_info", {"message_id": 1})
            report = await assistant.documents.add([notes])
            [document] = await assistant.runner.wait_for(report.job_ids, timeout=60)
            hits = await assistant.documents.search("when do tomatoes go in", k=1)
            [job] = [j for j in await assistant._jobs.list() if j.id == waiting.id]
            return document, hits, job
        finally:
            await assistant.close()

    job_of_document, hits, learning = run(scenario())
    assert job_of_document.status.value == "done"
    assert "south bed" in hits[0].passage.content
    assert learning.status.value == "pending"  # for when a model is there


def test_the_window_does_not_start_an_indexing_that_died_with_it_twice(tmp_path):
    """At each start the window's assistant recovers the indexing jobs left running (it
    owns the profile): found so once, a job runs again; found so a second time, it is
    failed with the reason, its document says why, and the runner does not start it."""
    profile, _answer_id = _profile_with_streaming_answer(tmp_path)
    paths = []
    for name in ("garden", "kitchen"):
        path = tmp_path / f"{name}.md"
        path.write_text(f"# {name}\n\nThe {name} notes say little.\n", encoding="utf-8")
        paths.append(path)

    async def killed_while_indexing(died_before: int) -> int:
        """What a kill mid-indexing leaves: the job running (claimed, as the runner does),
        having died ``died_before`` times already."""
        assistant = await open_assistant(profile, model_required=False, start_jobs=False)
        try:
            (job_id,) = (await assistant.documents.add([paths[died_before]])).job_ids
            await assistant._store.run(
                lambda db: db.execute(
                    "UPDATE jobs SET status = 'running', attempts = 1, interruptions = ? "
                    "WHERE id = ?",
                    [died_before, job_id],
                )
            )
        finally:
            await assistant.close()
        return job_id

    async def start():
        assistant = await open_assistant(profile, model_required=False)
        try:
            await assistant.runner.wait_idle(timeout=60)
            return await assistant.documents.list(), await assistant._jobs.list()
        finally:
            await assistant.close()

    first = run(killed_while_indexing(0))
    second = run(killed_while_indexing(1))
    (garden, kitchen), jobs = run(start())
    assert garden.status.value == "ready"  # died once: indexed at this start
    assert kitchen.status.value == "error"
    assert "stopped the app twice while indexing" in kitchen.error
    status = {job.id: (job.status.value, job.last_error) for job in jobs}
    assert status[first] == ("done", None)
    assert status[second] == ("failed", "stopped the app twice while indexing")
