"""A LoCoMo-format sample as the app keeps what was said: its sessions as conversations.

The window's evaluations (extraction, the ablation) and ``eval retrieval`` play a
sample into a temporary profile the same way: each session becomes an ordinary
conversation whose turns are its messages, with the speaker as the message's author and
the session's date as its date, and each question is asked when the dataset says (else
just after the last session).
"""

from __future__ import annotations

from datetime import UTC, datetime

from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store.connection import Database
from acai_desktop.evaluation.locomo import Question, Sample


def session_timestamp(date: str) -> str | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an ISO timestamp (None if unreadable)."""
    try:
        moment = datetime.strptime(" ".join(date.split()), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC).isoformat(timespec="microseconds")


def store_sessions(db: Database, sample: Sample, temporary: bool) -> dict[str, int]:
    """Each session of the sample as a conversation of its turns (the speaker as the
    author, the session's date as the date); dia_id -> message id."""
    message_of = {}
    with db.atomic():
        conversation_of: dict[int, int] = {}
        for turn in sample.turns:
            if turn.session not in conversation_of:
                title = f"{sample.sample_id} session {turn.session}"
                conversation = conversation_sql.create_conversation(db, title, temporary)
                conversation_of[turn.session] = conversation.id
            message = conversation_sql.add_message(
                db,
                conversation_of[turn.session],
                "user" if turn.speaker == sample.speaker_a else "assistant",
                turn.text,
                author=turn.speaker or None,
                created_at=session_timestamp(turn.session_date),
            )
            message_of[turn.dia_id] = message.id
    return message_of


def asked_at(question: Question, sample: Sample) -> datetime | None:
    """When ``question`` is asked: the dataset's question date, else just after the
    sample's last session (as in the app, where a question comes after what was said)."""
    if question.asked_at:
        return datetime.fromisoformat(question.asked_at)
    stamps = [session_timestamp(turn.session_date) for turn in sample.turns]
    latest = max((s for s in stamps if s), default=None)
    return datetime.fromisoformat(latest) if latest else None
