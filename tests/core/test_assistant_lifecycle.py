"""Opening and closing the whole assistant: background re-embedding, clean shutdown."""

import asyncio
import sqlite3
import subprocess
import sys

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import ModelOverrides, open_assistant
from acai_desktop.core.errors import StoreError
from acai_desktop.core.events import EventBus
from tests.support.aio import run
from tests.support.assistant import configure_profile


def test_memories_from_another_embedder_are_reembedded_in_the_background(tmp_path, fake_openai):
    profile = configure_profile(tmp_path, fake_openai)

    async def first_run():
        assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        try:
            for text in ("I like green tea", "My sister lives in Oslo", "I run on Sundays"):
                await assistant.memories.remember(text, explicit=True)
            await assistant.reembedding
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
            redone = await asyncio.wait_for(assistant.reembedding, 30)
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
