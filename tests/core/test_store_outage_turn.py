"""The memory's PostgreSQL server going away while an answer is written (issue 39 G10):
the answer keeps every word the user saw and says the connection was lost, not that the
app closed, and the log carries no traceback. The real throwaway server, stopped and
started again; the scripted model streams slowly so the outage falls mid-answer."""

from __future__ import annotations

import asyncio
import logging

import pytest

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.errors import StoreError
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.store_choice import parse_server_url
from acai_desktop.core.store.interrupted_answers import CONNECTION_LOST_NOTE
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.memory import shared_embedder
from tests.support.postgres_outage import start_server, stop_server

ANSWER = " ".join(f"word{i}" for i in range(40))


def test_an_answer_cut_off_by_a_lost_database_says_so_and_keeps_its_words(
    tmp_path, fake_openai, postgres_cluster, postgres_url, caplog
):
    caplog.set_level(logging.INFO)
    local = configure_profile(tmp_path / "profile", fake_openai)
    profile = local.__class__.at(local.data_dir, server=parse_server_url(postgres_url))
    fake_openai.responder = lambda request: Reply(text=ANSWER, chunk_delay=0.05)

    async def open_it():
        return await open_assistant(
            profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
        )

    async def scenario():
        assistant = await open_it()
        conversation = await assistant.conversations.create()
        turn = asyncio.ensure_future(assistant.orchestrator.send(conversation.id, "Tell me."))
        while not fake_openai.chat_requests():
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # a few words in
        await asyncio.to_thread(stop_server, postgres_cluster)
        try:
            with pytest.raises(StoreError, match="connection"):
                await turn
            await assistant.close()
        finally:
            await asyncio.to_thread(start_server, postgres_cluster)
        again = await open_it()  # the window's reconnect, in the same process
        try:
            return await again.conversations.messages(conversation.id)
        finally:
            await again.close()

    question, answer = run(scenario())
    assert question.content == "Tell me."
    assert (answer.status, answer.error) == ("stopped", CONNECTION_LOST_NOTE)
    assert answer.content == ANSWER  # every word streamed, though none could be saved
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert not tracebacks, [r.getMessage() for r in tracebacks]
