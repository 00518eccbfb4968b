"""Answers a start finds cut off: still ``streaming`` with no one writing them."""

from __future__ import annotations

from collections.abc import Mapping

from acai_desktop.core.store import session_locks
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import WRITING_ANSWERS

#: Why an answer a start finds still ``streaming`` stopped. On SQLite only this
#: profile's one process writes it; on PostgreSQL its writer's session ended, which a
#: crash and a lost connection alike do.
APP_CLOSED_NOTE = "The app closed while this answer was being written."
WRITER_GONE_NOTE = (
    "The app writing this answer closed, or lost its connection to the database, "
    "before it was finished."
)
#: This process lost the database while writing the answer (core/turns/unsaved_answers.py).
CONNECTION_LOST_NOTE = (
    "The connection to the database was lost while this answer was being written."
)


def recover_interrupted_answers(db: Database, lost: Mapping[int, str] | None = None) -> int:
    """At start-up: an answer still 'streaming' was cut off by a crash; call it stopped.
    On PostgreSQL only those no live computer is writing (``WRITING_ANSWERS``).
    ``lost``: answers this process was writing when its connection to the database was
    lost, with their whole text: saved with it, and with that reason."""
    streaming = db.execute("SELECT id FROM messages WHERE status = 'streaming'").fetchall()
    cut_off = session_locks.unheld(db, WRITING_ANSWERS, [row[0] for row in streaming])
    if not cut_off:
        return 0
    note = WRITER_GONE_NOTE if db.dialect.shared else APP_CLOSED_NOTE
    stopped = 0
    with db.atomic():
        for answer_id, text in (lost or {}).items():
            if answer_id in cut_off:
                stopped += db.execute(
                    "UPDATE messages SET status = 'stopped', content = ?, error = ? "
                    "WHERE id = ? AND status = 'streaming'",
                    [text, CONNECTION_LOST_NOTE, answer_id],
                ).rowcount
        stopped += db.execute(
            "UPDATE messages SET status = 'stopped', error = coalesce(error, ?) "
            f"WHERE status = 'streaming' AND id IN ({', '.join('?' for _ in cut_off)})",
            [note, *cut_off],
        ).rowcount
    return stopped
