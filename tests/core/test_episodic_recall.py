"""Episodic recall: what was said in other conversations comes back as a tier of its own."""

from __future__ import annotations

import sqlite3

from acai_desktop.core.memory.retrieval import RetrievedMessage
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.database import Store
from acai_lab.scripted_model import fake_model
from tests.core.test_migrations import build_database_at
from tests.support.aio import run
from tests.support.assistant import running_assistant


async def _said(assistant, conversation_id: int, text: str):
    result = await assistant.orchestrator.send(conversation_id, text)
    if result.job_ids:
        await assistant.runner.wait_for(result.job_ids, timeout=30)
    return result


async def _recalled(assistant, query: str, **kw) -> list[RetrievedMessage]:
    hits = await assistant.retriever.search(query, 10, **kw)
    return [hit for hit in hits if isinstance(hit, RetrievedMessage)]


def test_a_message_from_another_chat_is_recalled_with_its_chat_and_recorded(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            bikes = await assistant.conversations.create("Bikes")
            told = await _said(assistant, bikes.id, "My bike is a blue Gazelle from Utrecht.")
            later = await assistant.conversations.create()
            asked = await _said(assistant, later.id, "Which Gazelle did I get in Utrecht?")
            recorded = await assistant._provenance.sources_of_answer(asked.answer.id)
            vectors = len(assistant.memories.episodes.index)
            return told, later, asked, recorded, vectors

    told, _later, asked, recorded, vectors = run(scenario())
    assert asked.status == MessageStatus.COMPLETE
    recalled = [s for s in asked.memories_used if s.recalled_message_id is not None]
    assert [s.recalled_message_id for s in recalled][:1] == [told.user_message.id]
    message = asked.recalled[told.user_message.id]
    assert message.conversation_title == "Bikes" and message.speaker == "You"
    assert "Gazelle" in message.content
    assert recalled[0].memory_id is None and "lexical" in recalled[0].reasons
    # The question's own chat is in the short-term context, never recalled.
    own = {asked.user_message.id, asked.answer.id}
    assert not own & {s.recalled_message_id for s in asked.memories_used}
    # answer_sources keeps the message as it keeps memories, rank for rank.
    assert [(s.memory_id, s.recalled_message_id, s.rank) for s in recorded] == [
        (s.memory_id, s.recalled_message_id, s.rank) for s in asked.memories_used
    ]
    # Both turns of each chat got a vector for the semantic side.
    assert vectors == 4


def test_a_temporary_chats_messages_are_never_recalled(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            secret = await assistant.conversations.create(temporary=True)
            await _said(assistant, secret.id, "My Zephyr gym locker code is 4711.")
            ordinary = await assistant.conversations.create()
            await _said(assistant, ordinary.id, "The Zephyr gym opens at six.")
            recalled = await _recalled(assistant, "Zephyr gym locker code")
            return secret, ordinary, recalled, len(assistant.memories.episodes.index)

    _secret, ordinary, recalled, vectors = run(scenario())
    assert recalled, "the ordinary chat's message is recallable"
    assert {hit.message.conversation_id for hit in recalled} == {ordinary.id}
    assert vectors == 2  # the ordinary chat's two turns only


def test_a_deleted_chats_messages_are_no_longer_recalled(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            plumbing = await assistant.conversations.create("Plumbing")
            await _said(assistant, plumbing.id, "Quintus the plumber fixes our boiler on Fridays.")
            before = await _recalled(assistant, "When does Quintus fix the boiler?")
            service = assistant.conversations
            deleted = await service.delete(plumbing.id)
            after = await _recalled(assistant, "When does Quintus fix the boiler?")
            rows = await assistant._store.run(
                lambda db: db.execute(
                    "SELECT (SELECT count(*) FROM messages_fts_docsize), "
                    "(SELECT count(*) FROM message_embeddings)"
                ).fetchone()
            )
            in_index = [i for i in deleted.message_ids if i in assistant.memories.episodes.index]
            return before, after, rows, in_index

    before, after, rows, in_index = run(scenario())
    assert before and before[0].message.conversation_title == "Plumbing"
    assert after == []
    assert rows == (0, 0) and in_index == []


def test_what_a_forgotten_memory_came_from_is_no_longer_recalled(tmp_path, fake_openai):
    """Forgetting "The user has a dog named Pico" keeps the message it was learned from
    out of recall, by its words and by its meaning; restoring it brings the message back."""
    fake_openai.responder = fake_model
    question = "What is my dog called? Pico?"

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            pets = await assistant.conversations.create("Pets")
            told = await _said(assistant, pets.id, "Hey, I have a dog named Pico.")
            fact = await assistant.memories.remember(
                "The user has a dog named Pico.", sources=[told.user_message.id], explicit=True
            )
            before = await _recalled(assistant, question)
            await assistant.memories.forget(fact.id)
            forgotten = await _recalled(assistant, question)
            by_meaning = await _recalled(assistant, "a pet of mine")
            await assistant.memories.restore(fact.id)
            restored = await _recalled(assistant, question)
            return told.user_message.id, before, forgotten, by_meaning, restored

    said, before, forgotten, by_meaning, restored = run(scenario())
    assert said in [hit.message.id for hit in before]
    assert said not in [hit.message.id for hit in forgotten]
    assert said not in [hit.message.id for hit in by_meaning]
    assert said in [hit.message.id for hit in restored]


def test_the_context_column_follows_the_turns_around_a_message(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            chat = await assistant.conversations.create()
            ids = []
            for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"):
                message = await assistant.conversations.add_message(chat.id, "user", word)
                ids.append(message.id)
            streaming = await assistant.conversations.add_message(
                chat.id, "assistant", "", status=MessageStatus.STREAMING
            )

            def contexts(db):
                return dict(db.execute("SELECT rowid, context FROM messages_fts").fetchall())

            first = await assistant._store.run(contexts)
            await assistant._conversation_repository.update_message(
                streaming.id, content="golf", status=MessageStatus.COMPLETE
            )
            rows = assistant._conversation_repository
            await rows.update_message(ids[2], content="charlie-updated")
            second = await assistant._store.run(contexts)
            return ids, streaming.id, first, second

    ids, answer_id, first, second = run(scenario())
    # Two recallable turns either side; a streaming answer is not recallable yet.
    assert sorted(first[ids[2]].split()) == ["alpha", "bravo", "delta", "echo"]
    assert answer_id not in first and sorted(first[ids[5]].split()) == ["delta", "echo"]
    # Finishing the answer and editing a turn update the neighbours' context.
    assert sorted(second[ids[5]].split()) == ["delta", "echo", "golf"]
    assert "updated" in second[ids[3]] and "updated" in second[ids[0]]


def test_an_upgraded_database_indexes_its_messages_and_keeps_answer_sources(tmp_path):
    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m001_initial")
    with sqlite3.connect(path) as connection:
        at = "2026-01-02T03:05:00.000000+00:00"
        connection.execute(
            "INSERT INTO messages (id, conversation_id, role, content, created_at) "
            "VALUES (2, 1, 'assistant', 'Python it is.', ?)",
            [at],
        )
        connection.execute(
            "INSERT INTO answer_sources (message_id, memory_id, rank, score, reasons) "
            "VALUES (2, 1, 1, 0.9, '[\"lexical\"]')"
        )
    connection.close()

    async def scenario():
        store = await Store.open(path)
        try:
            return await store.run(
                lambda db: (
                    db.execute(
                        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'backend'"
                    ).fetchall(),
                    db.execute(
                        "SELECT message_id, memory_id, recalled_message_id, rank, score "
                        "FROM answer_sources"
                    ).fetchall(),
                )
            )
        finally:
            await store.close()

    found, sources = run(scenario())
    # The user's message by its words, the answer by its neighbour's.
    assert sorted(found) == [(1,), (2,)]
    assert sources == [(2, 1, None, 1, 0.9)]


def test_a_recalled_message_goes_into_the_prompt_with_its_chat_and_date():
    from acai_desktop.core.memory.context_builder import build_context
    from acai_desktop.core.memory.prompt_lines import RECALLED_HEADER
    from acai_desktop.core.records.conversations import RecalledMessage

    message = RecalledMessage(
        id=7,
        conversation_id=3,
        conversation_title="Bikes",
        role="user",
        content="My bike is a blue Gazelle.",
        created_at="2026-03-04T10:00:00.000000+00:00",
    )
    built = build_context(
        system_prompt="You are ACAI.",
        user_message="Which bike do I have?",
        budget_tokens=500,
        retrieved=[RetrievedMessage(message, 1, 0.7, ["lexical"])],
    )
    system = built.messages[-1]["content"]  # the turn's data rides with the question
    assert RECALLED_HEADER in system
    assert '- [1] [2026-03-04, chat "Bikes"] You: My bike is a blue Gazelle.' in system
    [used] = built.used
    assert (used.memory_id, used.message_id, used.rank) == (None, 7, 1)
    assert built.recalled == {7: message}
