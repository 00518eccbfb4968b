"""Databases written by earlier schemas open, upgrade to head and keep their data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.migrations import migrations
from tests.support.aio import run
from tests.support.memory import memory_services, retrieve, shared_embedder

ALL_NAMES = migrations.names


def build_database_at(path: Path, last: str) -> None:
    """A database as the release whose newest migration was ``last`` left it."""
    db = Database(sqlite3.connect(path))
    position = ALL_NAMES.index(last)
    if position + 1 < len(ALL_NAMES):
        migrations.apply(db, stop_before=ALL_NAMES[position + 1])
    else:
        migrations.apply(db)
    assert [m.name for m in migrations.applied(db)] == ALL_NAMES[: position + 1]
    # Rows the way that release wrote them: plain SQL, no embedding yet.
    at = "2026-01-02T03:04:05.000000+00:00"
    with db.conn:
        db.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at) "
            "VALUES (1, 'Backend', ?, ?)",
            [at, at],
        )
        db.execute(
            "INSERT INTO messages (id, conversation_id, role, content, created_at) "
            "VALUES (1, 1, 'user', 'I prefer Python for backend development.', ?)",
            [at],
        )
        db.execute(
            "INSERT INTO memories (id, kind, content, category, origin, status, importance, "
            "created_at, updated_at) VALUES (1, 'fact', 'The user prefers Python for backend "
            "development', 'Preference', 'critical_info', 'active', 0.7, ?, ?)",
            [at, at],
        )
        db.execute("INSERT INTO memory_sources (memory_id, message_id) VALUES (1, 1)")
        if "settings" in db.table_names():  # before m005; never used, dropped with its rows
            db.execute("INSERT INTO settings (key, value) VALUES ('theme', 'dark')")
        db.execute(
            "INSERT INTO memory_events (memory_id, at, actor, action, after) "
            "VALUES (1, ?, 'critical_info_processor', 'created', '{}')",
            [at],
        )
    db.close()


def test_the_migration_list_starts_with_m001():
    assert ALL_NAMES[0] == "m001_initial"
    assert ALL_NAMES[16] == "m017_recall_index_without_its_copy"  # the last released
    assert "m012_chat_settings_and_token_usage" in ALL_NAMES
    assert all(name[0] == "m" and name[1:4].isdigit() for name in ALL_NAMES)
    assert sorted(ALL_NAMES) == ALL_NAMES


@pytest.mark.parametrize("last", ALL_NAMES)
def test_a_database_from_an_earlier_schema_upgrades_cleanly(tmp_path, last):
    path = tmp_path / "acai.sqlite3"
    build_database_at(path, last)

    async def scenario():
        store = await Store.open(path)
        try:

            def state(db):
                return (
                    [m.name for m in migrations.applied(db)],
                    migrations.pending(db),
                    db.execute("PRAGMA integrity_check").fetchone()[0],
                    db.execute("PRAGMA foreign_key_check").fetchall(),
                    db.execute(
                        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'python'"
                    ).fetchall(),
                    set(db.table_names()),
                )

            applied, pending, integrity, broken_keys, fts, tables = await store.run(state)
            assert applied == ALL_NAMES and pending == []
            assert "settings" not in tables  # m005: the table nothing used is gone
            assert integrity == "ok" and broken_keys == []
            assert fts == [(1,)]
        finally:
            await store.close()

        # Opening again changes nothing: each migration is recorded once.
        store = await Store.open(path)
        try:
            count = await store.run(
                lambda db: db.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0]
            )
            assert count == len(ALL_NAMES)
        finally:
            await store.close()

        # The upgraded data works with today's service: the old memory, stored before
        # embeddings, is embedded at start-up and becomes searchable and editable.
        async with memory_services(tmp_path) as (_store, service, events):
            assert events.named(ev.EmbeddingProgress)[-1] == ev.EmbeddingProgress(done=1, total=1)
            assert service.index.ids.tolist() == [1]
            memory = await service.get(1)
            assert memory.embedding_model == shared_embedder().name
            assert await service.sources(1) == [1]
            edited = await service.edit(1, "I prefer Go for backend development")
            assert edited.user_edited and edited.status == MemoryStatus.ACTIVE
            assert await retrieve(service, "Go backend") == [1]
            assert [e.action for e in await service.history(1)] == ["created", "edited"]

    run(scenario())


def test_m010_turns_each_conversation_into_one_shown_path_and_keeps_recall(tmp_path):
    """Versions and branches: a database from m009 keeps its messages, each following
    the one before it in its conversation, all shown, all still recallable; a message
    inserted the old way (no parent) follows the end of the shown path."""
    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m009_imported_conversations")
    at = "2026-01-02T03:04:05.000000+00:00"
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (2, 'B', ?, ?)",
            [at, at],
        )
        for message_id, conversation_id, role, text in [
            (2, 1, "assistant", "Python it is, then."),
            (3, 2, "user", "Tell me about walruses."),
            (4, 1, "user", "And for the frontend?"),
            (5, 2, "assistant", "Walruses have tusks."),
        ]:
            connection.execute(
                "INSERT INTO messages (id, conversation_id, role, content, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [message_id, conversation_id, role, text, at],
            )
    connection.close()
    db = Database(sqlite3.connect(path))
    migrations.apply(db)
    rows = db.execute(
        "SELECT id, conversation_id, parent_id, selected, hidden, content FROM messages ORDER BY id"
    ).fetchall()
    assert [row[:5] for row in rows] == [
        (1, 1, None, 1, 0),
        (2, 1, 1, 1, 0),
        (3, 2, None, 1, 0),
        (4, 1, 2, 1, 0),
        (5, 2, 3, 1, 0),
    ]
    assert rows[4][5] == "Walruses have tusks."
    found = db.execute(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'walruses' ORDER BY rowid"
    ).fetchall()
    assert found == [(3,), (5,)]
    with db.conn:
        db.execute(
            "INSERT INTO messages (conversation_id, role, content, created_at) "
            "VALUES (1, 'assistant', 'Try TypeScript.', ?)",
            [at],
        )
        # Hiding a message takes it out of recall (its words and its neighbours' context).
        db.execute("UPDATE messages SET hidden = 1 WHERE id = 5")
    assert db.execute("SELECT parent_id FROM messages WHERE id = 6").fetchone() == (4,)
    found = db.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'tusks'").fetchall()
    assert found == []
    db.close()


def test_chats_of_an_older_profile_keep_their_titles_can_be_pinned_and_instructed(tmp_path):
    from acai_desktop.core.store.conversations import (
        add_message,
        create_conversation,
        fetch_conversation,
        list_conversations,
        set_pinned,
    )
    from acai_desktop.core.store.instructions import instructions_for_chat, profile_instructions

    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m010_message_versions")

    async def scenario():
        store = await Store.open(path)
        try:

            def upgraded(db):
                old = fetch_conversation(db, 1)
                new = create_conversation(db)
                add_message(db, new.id, "user", "Plan a picnic for Saturday")
                set_pinned(db, old.id, True)
                # No custom instructions yet: every chat follows the (empty) profile's.
                assert profile_instructions(db) == CustomInstructions()
                assert instructions_for_chat(db, old.id) is None
                return old, fetch_conversation(db, new.id), list_conversations(db)

            return await store.run(upgraded)
        finally:
            await store.close()

    old, new, listed = run(scenario())
    # A title the older release wrote may be the user's: the title job never touches it.
    assert (old.title, old.title_auto, old.pinned) == ("Backend", False, False)
    # The older chat, pinned, comes before the newer one.
    assert [(c.title, c.pinned) for c in listed] == [("Backend", True), (new.title, False)]
    assert (new.title, new.title_auto) == ("Plan a picnic for Saturday", True)


def test_an_older_profile_s_chats_and_memories_are_outside_any_project(tmp_path):
    """m013: what an earlier release stored belongs to no project, so every chat sees
    it as before; a project made afterwards keeps its own memories apart."""
    from acai_desktop.core.store.conversations import create_conversation, fetch_conversation
    from acai_desktop.core.store.memories import fetch_memory
    from acai_desktop.core.store.memory_writes import insert_memory
    from acai_desktop.core.store.projects import create_project, out_of_scope

    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m011_chat_titles_pins_and_instructions")

    async def scenario():
        store = await Store.open(path)
        try:

            def upgraded(db):
                old_chat, old_memory = fetch_conversation(db, 1), fetch_memory(db, 1)
                before = out_of_scope(db, None)
                project = create_project(db, "Garden")
                chat = create_conversation(db, project_id=project.id)
                with db.atomic():
                    learned = insert_memory(
                        db,
                        {"kind": "fact", "content": "The user grows kiwifruit",
                         "origin": "critical_info", "conversation_id": chat.id},
                        actor="critical_info_processor",
                    )  # fmt: skip
                return old_chat, old_memory, before, learned, project, out_of_scope(db, None)

            return await store.run(upgraded)
        finally:
            await store.close()

    old_chat, old_memory, before, learned, project, after = run(scenario())
    assert old_chat.project_id is None and old_memory.project_id is None
    assert before.memory_ids == [] and before.message_ids == []
    assert learned.project_id == project.id
    assert after.memory_ids == [learned.id]
