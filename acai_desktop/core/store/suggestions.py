"""SQL for memory suggestions: facts the processor found that wait for the user's decision
("Ask before remembering"). Functions run on the database thread (``Store.run``)."""

from __future__ import annotations

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.records.memories import Suggestion, SuggestionDraft, SuggestionStatus
from acai_desktop.core.store.connection import Database

_COLUMNS = (
    "id, message_id, conversation_id, content, category, confidence, status, memory_id, "
    "created_at, via"
)


def propose_suggestion(db: Database, draft: SuggestionDraft) -> Suggestion | None:
    """A new pending suggestion; None if this fact was already proposed for this message
    (pending, accepted or dismissed: a dismissed one is never proposed again), or is
    waiting for the user's answer already (said again in another message)."""
    waiting = db.query(
        "SELECT id FROM memory_suggestions WHERE normalised = ? AND status = ? LIMIT 1",
        [draft.normalised, SuggestionStatus.PENDING.value],
    )
    if next(iter(waiting), None) is not None:
        return None
    cursor = db.execute(
        "INSERT INTO memory_suggestions (message_id, conversation_id, content, normalised, "
        "category, confidence, created_at, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING RETURNING id",
        [draft.message_id, draft.conversation_id, draft.content, draft.normalised,
         draft.category, draft.confidence, now_iso(), draft.via],
    )  # fmt: skip
    inserted = cursor.fetchone()
    if inserted is None:  # already suggested
        return None
    return fetch_suggestion(db, inserted[0])


def fetch_suggestion(db: Database, suggestion_id: int) -> Suggestion:
    rows = list(
        db.query(f"SELECT {_COLUMNS} FROM memory_suggestions WHERE id = ?", [suggestion_id])
    )
    if not rows:
        raise NotFoundError(f"There is no memory suggestion #{suggestion_id}.")
    return Suggestion.from_row(rows[0])


def pending_suggestions(db: Database, limit: int = 200) -> list[Suggestion]:
    """Pending suggestions, oldest first (the order they were said in)."""
    rows = db.query(
        f"SELECT {_COLUMNS} FROM memory_suggestions WHERE status = 'pending' ORDER BY id LIMIT ?",
        [limit],
    )
    return [Suggestion.from_row(row) for row in rows]


def ensure_pending(suggestion: Suggestion) -> Suggestion:
    """A suggestion is decided once: accepting or dismissing it again is refused."""
    if suggestion.status != SuggestionStatus.PENDING:
        raise InvalidInputError(
            f"Suggestion #{suggestion.id} was already {suggestion.status.value}."
        )
    return suggestion


def decide_suggestion(
    db: Database, suggestion_id: int, status: SuggestionStatus, memory_id: int | None = None
) -> Suggestion:
    """Record the user's decision on a pending suggestion."""
    ensure_pending(fetch_suggestion(db, suggestion_id))
    db.execute(
        "UPDATE memory_suggestions SET status = ?, memory_id = ?, decided_at = ? WHERE id = ?",
        [status.value, memory_id, now_iso(), suggestion_id],
    )
    return fetch_suggestion(db, suggestion_id)
