"""The messages tree (answer versions and branches) on both stores (a real SQLite file,
a PostgreSQL database): the shown path after each change, and what each change hid and
showed again."""

from __future__ import annotations

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.conversations import (
    add_turn,
    create_conversation,
    list_messages,
    update_message,
)
from acai_desktop.core.store.message_tree import add_answer_version, add_branch, select_version
from tests.support.store_db import store_db


def open_db(store_location):
    return store_db(store_location)


def turn(db, conversation_id: int, question: str, answer: str) -> tuple[int, int]:
    new = add_turn(db, conversation_id, question)
    update_message(db, new.answer.id, content=answer, status=MessageStatus.COMPLETE)
    return new.user_message.id, new.answer.id


def shown(db, conversation_id: int) -> list[str]:
    return [m.content for m in list_messages(db, conversation_id)]


def answer(db, message_id: int, text: str) -> None:
    update_message(db, message_id, content=text, status=MessageStatus.COMPLETE)


def test_versions_and_branches_keep_every_path_reachable(store_location):
    db = open_db(store_location)
    chat = create_conversation(db).id
    _q1, a1 = turn(db, chat, "Q1", "A1")
    q2, a2 = turn(db, chat, "Q2", "A2")

    version = add_answer_version(db, a1)
    answer(db, version.answer.id, "A1b")
    assert shown(db, chat) == ["Q1", "A1b"]
    assert sorted(version.change.hidden) == [a1, q2, a2] and version.change.shown == []

    back = select_version(db, a1)
    assert shown(db, chat) == ["Q1", "A1", "Q2", "A2"]
    assert back.hidden == [version.answer.id] and back.shown == [a1, q2, a2]

    # Editing Q2 while another version of A1 is shown: the edit shows its own path.
    select_version(db, version.answer.id)
    branch = add_branch(db, q2, "Q2b")  # Q2 is hidden: its branch is shown all the same
    answer(db, branch.turn.answer.id, "A2b")
    assert shown(db, chat) == ["Q1", "A1", "Q2b", "A2b"]
    assert list_messages(db, chat)[2].versions == (q2, branch.turn.user_message.id)

    # Each fork remembers its choice: back to A1b and forth again finds Q2b, not Q2.
    select_version(db, version.answer.id)
    select_version(db, a1)
    assert shown(db, chat) == ["Q1", "A1", "Q2b", "A2b"]
    hidden = [m.content for m in list_messages(db, chat, include_hidden=True) if m.hidden]
    assert hidden == ["Q2", "A2", "A1b"]
    db.close()


def test_a_new_message_follows_the_end_of_the_shown_path(store_location):
    db = open_db(store_location)
    chat = create_conversation(db).id
    _q1, a1 = turn(db, chat, "Q1", "A1")
    turn(db, chat, "Q2", "A2")
    version = add_answer_version(db, a1)
    answer(db, version.answer.id, "A1b")
    turn(db, chat, "Q3", "A3")
    assert shown(db, chat) == ["Q1", "A1b", "Q3", "A3"]
    assert list_messages(db, chat)[2].parent_id == version.answer.id
    db.close()
