"""The Review's answers about a fact that has aged (core/memory/fact_ages.py), as rows:
*Still true* confirms it now; *No longer true* retires it (superseded, with nothing in
its place, its history kept). Both are the user's, recorded in the memory's history,
and count against the week's few reviews."""

from __future__ import annotations

from datetime import datetime, timedelta

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records.memories import Actor, MemoryStatus
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.memories import fetch_memory
from acai_desktop.core.store.memory_changes import MemoryChange
from acai_desktop.core.store.memory_writes import update_memory

#: The history's actions of the Review's answers (they count against the week's few).
CONFIRMED = "confirmed still true"
NO_LONGER_TRUE = "no longer true"


def confirm_memory(db: Database, memory_id: int, *, at: str | None = None) -> MemoryChange:
    """The fact is still true: it is as of now (``at``: the caller's clock), a temporary
    one becomes active."""
    at = at or now_iso()
    with db.atomic():
        current = _current(db, memory_id, "confirmed")
        changes: dict = {"as_of": at}
        if current.status == MemoryStatus.TEMPORARY:
            changes["status"] = MemoryStatus.ACTIVE
        item = update_memory(db, memory_id, changes, actor=Actor.USER, action=CONFIRMED, at=at)
        return MemoryChange(item, changed=[item])


def retire_memory(db: Database, memory_id: int, *, at: str | None = None) -> MemoryChange:
    """The fact is no longer true: superseded, by nothing (its history says so); the
    prompt never quotes it again."""
    with db.atomic():
        _current(db, memory_id, "retired")
        changes = {"status": MemoryStatus.SUPERSEDED, "pinned": False}
        item = update_memory(db, memory_id, changes, actor=Actor.USER, action=NO_LONGER_TRUE, at=at)
        return MemoryChange(item, changed=[item])


def reviews_since(db: Database, since: datetime) -> int:
    """How many Review answers were given since ``since``."""
    row = db.execute(
        "SELECT count(*) FROM memory_events WHERE action IN (?, ?) AND at >= ?",
        [CONFIRMED, NO_LONGER_TRUE, since.isoformat(timespec="microseconds")],
    ).fetchone()
    return int(row[0])


def week_before(now: datetime) -> datetime:
    return now - timedelta(days=7)


def _current(db: Database, memory_id: int, what: str):
    current = fetch_memory(db, memory_id)
    if not current.status.is_current:
        raise InvalidInputError(
            f"Memory {memory_id} is {current.status.value}; only a current memory can be {what}."
        )
    return current
