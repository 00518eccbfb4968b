"""Answer versions and chat branches: the messages of a conversation as a tree
(migration m010, docs/architecture.md "Versions and branches").

Each message has a parent (the message it follows); siblings are the alternatives at
one place: the versions of an answer (children of one user message) or the user's
edited messages (children of one answer). At each fork one child is ``selected``; the
shown path goes from the first message down the selected children, and every message
off it is ``hidden``. Hidden is stored (not only derived) so that every query of "the
conversation's messages" and episodic recall's index need only ``hidden = 0``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from acai_desktop.core.clock import now_iso
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversation_locks import lock_conversation
from acai_desktop.core.store.conversations import (
    NewTurn,
    _insert_message,
    fetch_conversation,
    fetch_message,
)
from acai_desktop.core.store.jobs import JobSpec, fetch_job, insert_job


@dataclass(frozen=True)
class PathChange:
    """What a change of version or branch did to the shown path."""

    conversation_id: int
    hidden: list[int]  # message ids no longer shown
    shown: list[int]  # message ids shown again


def refresh_shown_path(db: Database, conversation_id: int) -> PathChange:
    """Mark the messages off the shown path ``hidden`` (caller's transaction)."""
    rows = db.execute(
        "SELECT id, parent_id, selected, hidden FROM messages WHERE conversation_id = ? "
        "ORDER BY id",
        [conversation_id],
    ).fetchall()
    selected_children: dict[int | None, list[int]] = defaultdict(list)
    for message_id, parent_id, selected, _hidden in rows:
        if selected:
            selected_children[parent_id].append(message_id)
    path: set[int] = set()
    node: int | None = None
    # A fork with no selected child ends the path (a new child is about to be added);
    # with several (rows written before versions existed), the newest wins.
    while (children := selected_children.get(node)) and children[-1] not in path:
        node = children[-1]
        path.add(node)
    hidden = [row[0] for row in rows if row[0] not in path and not row[3]]
    shown = [row[0] for row in rows if row[0] in path and row[3]]
    db.conn.executemany("UPDATE messages SET hidden = TRUE WHERE id = ?", ((i,) for i in hidden))
    db.conn.executemany("UPDATE messages SET hidden = FALSE WHERE id = ?", ((i,) for i in shown))
    return PathChange(conversation_id, hidden, shown)


def _merged(first: PathChange, then: PathChange) -> PathChange:
    """Two changes of one transaction as one: where each message ended up."""
    hidden = [i for i in first.hidden if i not in then.shown] + then.hidden
    shown = [i for i in first.shown if i not in then.hidden] + then.shown
    return PathChange(first.conversation_id, hidden, shown)


def select_version(db: Database, message_id: int) -> PathChange:
    """Show ``message_id`` at its fork, and below it what was shown there before."""
    with db.atomic():
        message = fetch_message(db, message_id)
        lock_conversation(db, message.conversation_id)
        _select_path_to(db, message)
        return refresh_shown_path(db, message.conversation_id)


def _select_path_to(db: Database, message: Message) -> None:
    """Select ``message`` and each of its ancestors at their forks, so the shown path
    runs through it even when it was in a branch not shown."""
    node: Message | None = message
    while node is not None:
        _select_only(db, node.conversation_id, node.parent_id, node.id)
        node = fetch_message(db, node.parent_id) if node.parent_id is not None else None


def _select_only(db: Database, conversation_id: int, parent_id: int | None, chosen) -> None:
    db.execute(
        "UPDATE messages SET selected = (id IS NOT DISTINCT FROM ?) "
        "WHERE conversation_id = ? AND parent_id IS NOT DISTINCT FROM ?",
        [chosen, conversation_id, parent_id],
    )


def end_path_before(db: Database, message: Message) -> PathChange:
    """Deselect ``message`` and its siblings, so the shown path ends at their parent:
    the next message inserted (its parent defaults to the path's end) becomes a new
    sibling (caller's transaction)."""
    _select_only(db, message.conversation_id, message.parent_id, None)
    return refresh_shown_path(db, message.conversation_id)


@dataclass(frozen=True)
class NewAnswerVersion:
    answer: Message  # the new version, streaming and empty
    change: PathChange


def add_answer_version(db: Database, answer_id: int) -> NewAnswerVersion:
    """A new, empty ``streaming`` answer beside ``answer_id`` (same question), shown in
    its place; the old version and whatever followed it stay, hidden."""
    with db.atomic():
        old = fetch_message(db, answer_id)
        lock_conversation(db, old.conversation_id)
        ended = end_path_before(db, old)
        new_id = _insert_message(
            db,
            old.conversation_id,
            "assistant",
            "",
            status=MessageStatus.STREAMING,
            at=now_iso(),
            parent_id=old.parent_id,
        )
        _select_path_to(db, fetch_message(db, new_id))
        ended = _merged(ended, refresh_shown_path(db, old.conversation_id))
    return NewAnswerVersion(fetch_message(db, new_id), ended)


@dataclass(frozen=True)
class NewBranch:
    turn: NewTurn  # the edited message, its answer (streaming) and its learning jobs
    change: PathChange


def add_branch(
    db: Database,
    user_message_id: int,
    text: str,
    jobs_for: Callable[[int], Iterable[JobSpec]] | None = None,
) -> NewBranch:
    """The user's edit of ``user_message_id``: a new user message beside it (after the
    same answer), its ``streaming`` answer and the processors' jobs, in one transaction
    (as :func:`~acai_desktop.core.store.conversations.add_turn`). The new branch is
    shown; the old message and everything after it stay, hidden."""
    at = now_iso()
    with db.atomic():
        old = fetch_message(db, user_message_id)
        if old.role != "user":
            raise ValueError(f"message {user_message_id} is not the user's")
        lock_conversation(db, old.conversation_id)
        ended = end_path_before(db, old)
        user_id = _insert_message(
            db, old.conversation_id, "user", text, at=at, parent_id=old.parent_id
        )
        answer_id = _insert_message(
            db,
            old.conversation_id,
            "assistant",
            "",
            status=MessageStatus.STREAMING,
            at=at,
            parent_id=user_id,
        )
        _select_path_to(db, fetch_message(db, answer_id))
        ended = _merged(ended, refresh_shown_path(db, old.conversation_id))
        specs = jobs_for(user_id) if jobs_for is not None else ()
        job_ids = [insert_job(db, spec, wait_for_message_id=answer_id, at=at) for spec in specs]
    jobs = [fetch_job(db, job_id) for job_id in job_ids]
    turn = NewTurn(
        fetch_message(db, user_id),
        fetch_message(db, answer_id),
        jobs,
        fetch_conversation(db, old.conversation_id),
    )
    return NewBranch(turn, ended)
