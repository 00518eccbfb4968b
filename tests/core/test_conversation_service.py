"""The conversation service and the turn's part in it: a send without a conversation
starts one, a message is refused before anything is written, a title is news, and a
chat opens with its answers' source counts in one query."""

from __future__ import annotations

import json

import numpy as np
import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.documents.chunking import Chunk
from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records.conversations import AnswerSource, MessageStatus
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store import conversations as rows
from acai_desktop.core.store import documents as documents_sql
from acai_desktop.core.store.database import connect
from acai_desktop.core.store.provenance import record_answer_sources
from acai_lab.scripted_model import fake_model
from tests.core.test_conversation_lifecycle import heard
from tests.support.aio import run
from tests.support.assistant import running_assistant

CONVERSATION_NEWS = (ev.ConversationCreated, ev.ConversationChanged, ev.MessageAdded)


def test_a_send_without_a_conversation_starts_one_and_announces_its_title(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            news = heard(assistant, *CONVERSATION_NEWS)
            result = await assistant.orchestrator.send(
                None, "Plan a picnic for Saturday", temporary=True
            )
            stored = await assistant.conversations.get(result.conversation_id)
            listed = await assistant.conversations.list()
            return result, stored, listed, news

    result, stored, listed, news = run(scenario())
    assert [c.id for c in listed] == [result.conversation_id]
    assert stored.temporary and stored.title == "Plan a picnic for Saturday"
    created, titled, asked, answer = news
    assert type(created) is ev.ConversationCreated
    assert created.conversation.id == stored.id and created.conversation.title == ""
    # The title written with the first message is announced: nobody re-reads the row.
    assert titled == ev.ConversationChanged(stored)
    assert asked.message.content == "Plan a picnic for Saturday"
    assert answer.message.role == "assistant"


def test_each_send_announces_the_conversation_moved_up(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            first = await assistant.conversations.create()
            news = heard(assistant, *CONVERSATION_NEWS)
            await assistant.orchestrator.send(first.id, "Hello")
            await assistant.orchestrator.send(first.id, "And again")
            return first, news, await assistant.conversations.get(first.id)

    first, news, stored = run(scenario())
    changed = [event.conversation for event in news if type(event) is ev.ConversationChanged]
    assert [c.id for c in changed] == [first.id, first.id]
    assert changed[0].title == changed[1].title == "Hello"  # the first message names it
    assert changed[1] == stored and changed[1].updated_at > first.updated_at
    assert not [event for event in news if type(event) is ev.ConversationCreated]


@pytest.mark.parametrize("text", ["", "   \n", "x" * 100_001, "nul\x00here"])
def test_a_refused_message_starts_no_conversation(tmp_path, fake_openai, text):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            news = heard(assistant, *CONVERSATION_NEWS)
            with pytest.raises(InvalidInputError):
                await assistant.orchestrator.send(None, text)
            return news, await assistant.conversations.list()

    news, listed = run(scenario())
    assert news == [] and listed == []


def test_export_writes_the_file_and_says_how_many_messages(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            result = await assistant.orchestrator.send(None, "What is a good tea?")
            target = tmp_path / "tea.json"
            count = await assistant.conversations.export(
                result.conversation_id, str(target), "json"
            )
            return count, json.loads(target.read_text())

    count, exported = run(scenario())
    assert count == 2
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"]


def test_messages_come_with_their_source_counts_in_one_query(tmp_path):
    db = connect(tmp_path / "db.sqlite3")
    conversation = rows.create_conversation(db)
    rows.add_message(db, conversation.id, "user", "Which pump?")
    used = rows.add_message(db, conversation.id, "assistant", "The blue one.")
    rows.add_message(db, conversation.id, "user", "And the valve?")
    bare = rows.add_message(db, conversation.id, "assistant", "No idea.")
    streaming = rows.add_message(
        db, conversation.id, "assistant", "", status=MessageStatus.STREAMING
    )
    memory_id = db.execute(
        "INSERT INTO memories (kind, content, origin, created_at, updated_at) "
        "VALUES ('fact', 'The pump is blue', 'user', 'x', 'x')"
    ).lastrowid
    record_answer_sources(db, used.id, [AnswerSource(used.id, memory_id, 1, 0.9, ["lexical"])])
    document, _ = documents_sql.queue_document(db, "/x/manual.pdf", "manual.pdf", "pdf", 10)
    facts = {"size": 10, "sha256": "ab", "mtime": 1.0, "page_count": 1}
    chunk_sql.store_chunks(
        db, document.id, [Chunk(0, "blue pump", 2, page=1)], np.ones((1, 4)), "m", facts
    )
    (chunk_id,) = chunk_sql.chunk_ids_of(db, document.id)
    passage = EvidenceSource(
        used.id, 1, chunk_id, document.id, "manual.pdf", 1, 0.5, ["lexical"], "blue pump"
    )
    documents_sql.record_evidence(db, used.id, [passage])

    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    messages, counts = rows.list_messages_with_sources(db, conversation.id)
    db.conn.set_trace_callback(None)

    assert [m.id for m in messages] == [m.id for m in rows.list_messages(db, conversation.id)]
    assert counts == {used.id: 2, bare.id: 0}  # a streaming answer's count is not known yet
    assert streaming.id not in counts
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
    db.close()
