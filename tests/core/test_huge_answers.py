"""A huge answer (a runaway model streaming tens of megabytes) is cut at the answer size
limit, with a note saved and announced, the stream closed, and at a linear cost; its
vector for recall is made from its head."""

from __future__ import annotations

import numpy as np

from acai_desktop.core import events as ev
from acai_desktop.core.memory.episodic import EMBEDDED_CHARACTERS
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.turns import answer_text
from acai_desktop.core.turns.answer_text import was_cut
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.memory import memory_services

STREAM_MB = 40
LIMIT_MB = 0.2
PIECE = 64


def huge_text() -> str:
    sentence = "The model goes on and on, repeating itself without end. "
    size = STREAM_MB * 1_000_000
    return (sentence * (size // len(sentence) + 1))[:size]


def test_a_40_mb_stream_is_cut_at_the_limit_with_a_note_and_the_stream_closed(
    tmp_path, fake_openai, monkeypatch
):
    # Only growth shows the text (no clock): the copies counted below are then exact.
    monkeypatch.setattr(answer_text, "SHOW_EVERY_SECONDS", float("inf"))
    text = huge_text()
    fake_openai.script(Reply(text=text, chunk_chars=PIECE))

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, max_answer_mb=LIMIT_MB
        ) as assistant:
            deltas = []
            assistant.events.subscribe(ev.MessageUpdated, lambda e: deltas.append(e.delta))
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Tell me everything.")
            stored = await assistant.conversations.messages(conversation.id)
            return result, stored, deltas

    result, stored, deltas = run(scenario())
    limit = int(LIMIT_MB * 1_000_000)
    answer = stored[1]
    assert answer.status == MessageStatus.STOPPED == result.status
    assert was_cut(answer.error) and "0.2 MB" in answer.error
    size = len(answer.content.encode("utf-8"))
    assert limit - PIECE < size <= limit
    assert text.startswith(answer.content)
    assert result.answer.content == answer.content
    # The rest of the stream was not read: the app hung up.
    assert fake_openai.chat_requests()[-1].client_disconnected.wait(10)
    # The window was told the whole kept text, piece by piece, then the cut with its note.
    streamed = [d for d in deltas if d.status == MessageStatus.STREAMING]
    assert "".join(d.delta for d in streamed) == answer.content
    assert (deltas[-1].status, deltas[-1].error) == (MessageStatus.STOPPED, answer.error)
    # Linear: the texts handed out add up to a few times the answer, not per piece
    # (3,125 pieces of a growing text would be over 300 MB).
    assert sum(len(d.content) for d in streamed) <= 10 * size


def test_an_answer_within_the_limit_is_complete_and_whole(tmp_path, fake_openai):
    text = "Short and sweet. " * 1000
    fake_openai.script(Reply(text=text, chunk_chars=PIECE))

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, max_answer_mb=LIMIT_MB
        ) as assistant:
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Say it.")
            return await assistant.conversations.messages(conversation.id)

    answer = run(scenario())[1]
    assert (answer.status, answer.error) == (MessageStatus.COMPLETE, None)
    assert answer.content == text


def test_a_huge_message_is_embedded_for_recall_from_its_head_only(tmp_path):
    """Embedding a whole megabyte took half a gigabyte and seconds after the answer; the
    vector comes from the first EMBEDDED_CHARACTERS (the words are all searchable)."""
    head = "Sailing notes: the harbour, the tides and the knots. " * 100
    huge = head + "Something else entirely, at great length. " * 20_000

    async def scenario():
        async with memory_services(tmp_path) as (store, service, _events):
            conversations = ConversationRepository(store)
            conversation = await conversations.create()
            message = await conversations.add_message(conversation.id, "assistant", huge)
            assert await service.episodes.add([message.id]) == 1
            stored = await store.run(
                lambda db: db.execute(
                    "SELECT embedding FROM message_embeddings WHERE message_id = ?", [message.id]
                ).fetchone()[0]
            )
            expected = await service.embedder.embed([huge[:EMBEDDED_CHARACTERS]])
            return np.frombuffer(stored, dtype=np.float32), expected[0]

    stored, expected = run(scenario())
    assert len(head) < EMBEDDED_CHARACTERS < len(huge)
    assert np.allclose(stored, expected, atol=1e-6)
