"""Episodic recall's full-text index reads its text from the ``message_recall_rows``
view and keeps no copy of it (migration m017, issue 39 G11); its triggers keep it equal
to the view through every change of a message, version, branch and chat."""

from __future__ import annotations

import random
import sqlite3

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversation_deletion import delete_conversation
from acai_desktop.core.store.conversations import (
    add_message,
    add_turn,
    create_conversation,
    update_message,
)
from acai_desktop.core.store.database import connect
from acai_desktop.core.store.message_tree import add_answer_version, add_branch, select_version
from acai_desktop.core.store.migrations import migrations
from tests.core.test_migrations import build_database_at
from tests.support.recall_index import assert_index_is_the_view

WORDS = ["heron", "kiln", "marmot", "quartz", "saffron", "tundra", "velvet", "walnut", "yodel"]


def _found(db: Database, query: str) -> list[int]:
    rows = db.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", [query])
    return sorted(row[0] for row in rows)


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))


def _one_change(db: Database, rng: random.Random, chats: list[int]) -> None:
    """A change a user or the app makes: a turn, an answer finished or stopped, an
    edit, a regenerated answer, a branch, a version switched, a chat deleted."""
    rows = db.execute("SELECT id, role, status FROM messages").fetchall()
    answers = [row[0] for row in rows if row[1] == "assistant"]
    questions = [row[0] for row in rows if row[1] == "user"]
    streaming = [row[0] for row in rows if row[2] == "streaming"]
    kinds = {"turn": 30, "finish": 30, "edit": 10, "version": 8, "branch": 8, "switch": 8}
    kind = rng.choices([*kinds, "delete"], [*kinds.values(), 2])[0]
    if kind == "turn" or not rows:
        add_turn(db, rng.choice(chats), _text(rng))
    elif kind == "finish" and streaming:
        status = rng.choice([MessageStatus.COMPLETE, MessageStatus.STOPPED])
        update_message(db, rng.choice(streaming), content=_text(rng), status=status)
    elif kind == "edit":
        update_message(db, rng.choice([row[0] for row in rows]), content=_text(rng))
    elif kind == "version" and answers:
        add_answer_version(db, rng.choice(answers))
    elif kind == "branch" and questions:
        add_branch(db, rng.choice(questions), _text(rng))
    elif kind == "switch":
        select_version(db, rng.choice([row[0] for row in rows]))
    elif kind == "delete" and len(chats) > 2:
        delete_conversation(db, chats.pop(rng.randrange(len(chats))))
        chats.append(create_conversation(db, "Chat").id)


def test_the_index_keeps_no_copy_and_follows_every_change_of_the_shown_path(tmp_path):
    db = connect(tmp_path / "acai.sqlite3")
    try:
        assert "messages_fts_content" not in db.table_names()
        rng = random.Random(11)
        chats = [create_conversation(db, "Chat").id for _ in range(3)]
        temporary = create_conversation(db, "Scratch", temporary=True)
        add_message(db, temporary.id, "user", "heron in a temporary chat")
        for step in range(160):
            _one_change(db, rng, chats)
            if step % 8 == 0:
                assert_index_is_the_view(db)
        assert_index_is_the_view(db)
        # The walk left a real index to check, beside many messages it hid.
        assert db.execute("SELECT count(*) FROM message_recall_rows").fetchone()[0] >= 10
        assert db.execute("SELECT count(*) FROM messages WHERE hidden").fetchone()[0] >= 20
    finally:
        db.close()


def test_a_neighbours_edit_reindexes_the_context_of_the_turns_around_it(tmp_path):
    db = connect(tmp_path / "acai.sqlite3")
    try:
        chat = create_conversation(db, "Trip").id
        ids = [add_message(db, chat, "user", word).id for word in WORDS[:6]]
        assert _found(db, "context : kiln") == [ids[0], ids[2], ids[3]]
        update_message(db, ids[1], content="lighthouse")
        assert _found(db, "context : kiln") == []
        assert _found(db, "context : lighthouse") == [ids[0], ids[2], ids[3]]
        with db.atomic():  # a turn taken out of the middle, as a tool's plain SQL would
            db.execute("UPDATE messages SET parent_id = ? WHERE id = ?", [ids[1], ids[3]])
            db.execute("DELETE FROM messages WHERE id = ?", [ids[2]])
        # ids[4] now reaches back past the deleted turn to "lighthouse".
        assert _found(db, "context : lighthouse") == [ids[0], ids[3], ids[4]]
        assert_index_is_the_view(db)
    finally:
        db.close()


def test_a_profile_from_m016_is_reindexed_without_the_copy_and_still_found(tmp_path):
    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m016_idempotent_recall_window")
    at = "2026-01-02T03:04:05.000000+00:00"
    with sqlite3.connect(path) as connection:
        assert connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'messages_fts_content'"
        ).fetchone() == (1,)
        for message_id, role, text in [
            (2, "assistant", "Then try FastAPI with walruses."),
            (3, "user", "Walruses it is."),
        ]:
            connection.execute(
                "INSERT INTO messages (id, conversation_id, role, content, created_at) "
                "VALUES (?, 1, ?, ?, ?)",
                [message_id, role, text, at],
            )
    connection.close()
    db = connect(path)  # the app's open: migrates to m017
    try:
        assert "m017_recall_index_without_its_copy" in [m.name for m in migrations.applied(db)]
        assert "messages_fts_content" not in db.table_names()
        assert_index_is_the_view(db)
        assert _found(db, "backend") == [1, 2, 3]  # the first turn, and by its neighbours
        assert _found(db, "content : fastapi") == [2]
        update_message(db, 2, content="Then try Django.")
        assert _found(db, "fastapi") == []
        assert _found(db, "django") == [1, 2, 3]
        assert_index_is_the_view(db)
    finally:
        db.close()
