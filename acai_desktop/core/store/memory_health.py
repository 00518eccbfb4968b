"""The SQL behind the memory health view: counts over the ``memories`` and
``answer_sources`` tables, read in one transaction so the figures agree with each other.

Every function takes the connection (it runs on the database thread, through
``Store.run``) and returns plain tuples; :mod:`acai_desktop.core.memory.health` turns them
into the view's dataclasses and says what each figure means.
"""

from __future__ import annotations

from acai_desktop.core.records.memories import CURRENT_MEMORY_STATUSES, MemoryStatus
from acai_desktop.core.store.connection import Database

#: Upper bounds of the use-count buckets (the last one is open: "10 or more").
USE_BUCKETS = ((0, 0), (1, 1), (2, 4), (5, 9), (10, None))

_CURRENT = ", ".join(f"'{status.value}'" for status in sorted(CURRENT_MEMORY_STATUSES))


def by_kind_and_status(db: Database) -> list[tuple[str, str, int]]:
    """(kind, status, count) for every pair that has memories."""
    rows = db.execute(
        "SELECT kind, status, count(*) FROM memories GROUP BY kind, status ORDER BY kind, status"
    ).fetchall()
    return [(kind, status, count) for kind, status, count in rows]


def facts_per_day(db: Database) -> list[tuple[str, int]]:
    """(YYYY-MM-DD, facts created that day, in local time), oldest first; every fact
    counts, whatever became of it later (it was learned that day)."""
    rows = db.execute(
        f"SELECT {db.dialect.local_day('created_at')} AS day, count(*) FROM memories "
        "WHERE kind = 'fact' GROUP BY day ORDER BY day"
    ).fetchall()
    return [(day, count) for day, count in rows]


def uses_per_day(db: Database) -> list[tuple[str, int]]:
    """(YYYY-MM-DD, memories put into answers that day, in local time), from the answers'
    provenance (each answer records the memories its prompt held)."""
    rows = db.execute(
        f"SELECT {db.dialect.local_day('m.created_at')} AS day, count(*) FROM answer_sources AS s "
        "JOIN messages AS m ON m.id = s.message_id WHERE s.memory_id IS NOT NULL "
        "GROUP BY day ORDER BY day"
    ).fetchall()
    return [(day, count) for day, count in rows]


def use_count_buckets(db: Database) -> list[tuple[str, int]]:
    """(label, current memories whose use count falls in the bucket), in bucket order."""
    counts = []
    for low, high in USE_BUCKETS:
        if high is None:
            label, condition, args = f"{low}+", "use_count >= ?", [low]
        elif low == high:
            label, condition, args = str(low), "use_count = ?", [low]
        else:
            label, condition, args = f"{low}–{high}", "use_count BETWEEN ? AND ?", [low, high]
        (count,) = db.execute(
            f"SELECT count(*) FROM memories WHERE status IN ({_CURRENT}) AND {condition}", args
        ).fetchone()
        counts.append((label, count))
    return counts


def never_used(db: Database) -> int:
    """Current memories with a use count of 0."""
    (count,) = db.execute(
        f"SELECT count(*) FROM memories WHERE status IN ({_CURRENT}) AND use_count = 0"
    ).fetchone()
    return count


def unused_since(db: Database, cutoff: str) -> int:
    """Current memories last used (or, never used, created) before ``cutoff`` (ISO)."""
    (count,) = db.execute(
        f"SELECT count(*) FROM memories WHERE status IN ({_CURRENT}) "
        "AND coalesce(last_used_at, created_at) < ?",
        [cutoff],
    ).fetchone()
    return count


def superseded_kept(db: Database) -> int:
    (count,) = db.execute(
        "SELECT count(*) FROM memories WHERE status = ?", [MemoryStatus.SUPERSEDED.value]
    ).fetchone()
    return count


def read_all(db: Database, cutoff: str) -> dict:
    """Every figure, from one snapshot of the database (one read transaction: no write
    lands between two counts)."""

    def collect() -> dict:
        return {
            "by_kind_and_status": by_kind_and_status(db),
            "facts_per_day": facts_per_day(db),
            "uses_per_day": uses_per_day(db),
            "use_count_buckets": use_count_buckets(db),
            "never_used": never_used(db),
            "unused_since": unused_since(db, cutoff),
            "superseded_kept": superseded_kept(db),
        }

    if db.conn.in_transaction:
        return collect()
    db.execute("BEGIN")
    try:
        return collect()
    finally:
        db.conn.rollback()
