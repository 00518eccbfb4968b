"""The messages' facts kept in memory for the ranking (``core/memory/message_facts.py``)
stay those the database holds, whatever wrote: turns, edits (a new branch, the old one
hidden), a conversation deleted and its ids given to the next one, a project move, and
rows written by another connection. Each check compares every message's facts with
the SQL the ranking read before (``episodes._NEIGHBOURS``)."""

from __future__ import annotations

import sqlite3

from acai_desktop.core.memory.message_facts import MessageFacts, MessageIndex
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.store import episodes
from acai_desktop.core.store.conversations import add_message, create_conversation
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.fake_model import fake_model
from tests.support.memory import memory_services

NOW = "2030-01-02T03:04:05.678901+00:00"


def _compare(db, facts: MessageFacts):
    """(the database's facts of every message, the memory's, ids the memory lacks),
    in one read transaction."""
    julian = facts.sync(db, NOW)
    truth = db.execute(
        "SELECT m.id, m.conversation_id, coalesce(m.author, ''), "
        f"max(julianday(?) - julianday(m.created_at), 0), {episodes._NEIGHBOURS} "
        "FROM messages AS m ORDER BY m.id",
        [NOW],
    ).fetchall()
    known, missing = facts.rows([row[0] for row in truth], julian)
    normal = [(*row[:6], bool(row[6])) for row in truth]
    return normal, [(*row[:6], bool(row[6])) for row in known], missing


async def _follows(assistant) -> None:
    memories = assistant.memories
    retriever = HybridRetriever(
        memories.store, memories.embedder, memories.index, messages=memories.episodes.index
    )
    await retriever.search("what did we say about the picnic?")  # syncs on the way
    index = memories.episodes.index
    assert isinstance(index, MessageIndex)
    truth, known, missing = await memories.store.read(_compare, index.facts)
    assert missing == []
    assert known == truth
    assert len(index.facts) == len(truth)


def test_the_message_facts_follow_every_write(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            send = assistant.orchestrator.send
            first = (await send(None, "Plan a picnic for Saturday")).conversation_id
            await send(first, "Bring lemonade to the picnic")
            await _follows(assistant)

            # The newest chat is deleted: SQLite gives its ids to the next messages.
            second = (await send(None, "A picnic by the lake?")).conversation_id
            await send(second, "Or in the park")
            await _follows(assistant)
            await assistant.conversations.delete(second)
            # Recorded messages (no turn, so no search in between) take the ids back,
            # up to and past the highest the facts had read.
            third = (await assistant.conversations.create("Recorded")).id
            for number in range(6):
                await assistant.conversations.add_message(
                    third, "user" if number % 2 == 0 else "assistant", f"picnic {number}"
                )
            await _follows(assistant)
            await send(third, "Sandwiches for the picnic")
            await _follows(assistant)

            # An edit starts a new branch and hides the old one.
            messages = await assistant.conversations.messages(first)
            asked = next(m for m in messages if m.role == "user")
            await assistant.orchestrator.edit(asked.id, "Plan a picnic for Sunday")
            await _follows(assistant)

            project = await assistant.projects.create("Outings")
            await assistant.projects.move_conversation(third, project.id)
            await _follows(assistant)

            # Rows another connection writes (an import, another process).
            other = sqlite3.connect(tmp_path / "acai.sqlite3")
            with other:
                other.execute(
                    "INSERT INTO messages (conversation_id, role, content, author, created_at) "
                    "VALUES (?, 'user', 'picnic blanket', 'Jon', '2024-05-01T10:00:00Z')",
                    [first],
                )
            other.close()
            await _follows(assistant)

    run(scenario())


def test_a_deletion_nobody_announced_is_read_again(tmp_path, fake_openai):
    """Rows deleted at the top of the ids (their ids may come back) by a writer that did
    not tell the facts: the next search reads them all again."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            send = assistant.orchestrator.send
            first = (await send(None, "Plan a picnic for Saturday")).conversation_id
            second = (await send(None, "A picnic by the lake?")).conversation_id
            await _follows(assistant)
            other = sqlite3.connect(tmp_path / "acai.sqlite3")
            with other:
                other.execute("DELETE FROM messages WHERE conversation_id = ?", [second])
                other.execute(
                    "INSERT INTO messages (conversation_id, role, content, created_at) "
                    "VALUES (?, 'user', 'picnic rug', '2024-05-01T10:00:00Z')",
                    [first],
                )
            other.close()
            await _follows(assistant)

    run(scenario())


def test_the_facts_are_read_after_start_up_before_any_search(tmp_path):
    """The background work after start-up reads every message's facts, so the first
    question does not wait for them."""

    def write_chat(db):
        conversation = create_conversation(db, "Picnic").id
        for number in range(5):
            add_message(db, conversation, "user", f"picnic {number}")

    async def scenario():
        async with memory_services(tmp_path) as (store, service, _):
            await store.run(write_chat)
            assert len(service.episodes.index.facts) == 0
            await service.upkeep_after_start(reembed=False)
            return len(service.episodes.index.facts)

    assert run(scenario()) == 5
