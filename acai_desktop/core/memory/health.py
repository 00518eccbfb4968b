"""Memory health: what the profile's memory holds, how it grew, how much of it is used.

Read-only figures for the window's memory health view (and anything else that wants
them), from one snapshot of the database:

- memories by kind and status;
- facts learned per day and memories used in answers per day (local days);
- how often the current memories were used (their use count: put into an answer's
  prompt, or reinforced by a message saying the fact again);
- never-used and stale memories, as defined by :data:`STALE_DEFINITION`;
- the size of the database file and of its write-ahead log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from acai_desktop.core.records.memories import MemoryKind, MemoryStatus
from acai_desktop.core.store import memory_health as sql
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store

#: A current memory not used for this long counts as stale.
STALE_AFTER_DAYS = 90

#: What "never used" and "stale" mean, in the words the view shows.
NEVER_USED_DEFINITION = (
    "Never used: a current memory (active, temporary or a conflict) that no answer has "
    "drawn on and no message has reinforced (use count 0)."
)
STALE_DEFINITION = (
    "Stale: a superseded memory still kept as history, or a current memory not used "
    f"(nor, if never used, created) in the last {STALE_AFTER_DAYS} days."
)


@dataclass(frozen=True)
class DayCount:
    day: date
    count: int


@dataclass(frozen=True)
class DatabaseSize:
    file_bytes: int
    wal_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.file_bytes + self.wal_bytes


@dataclass(frozen=True)
class MemoryHealth:
    #: kind -> status -> count (only the pairs that have memories).
    by_kind_and_status: dict[MemoryKind, dict[MemoryStatus, int]]
    facts_per_day: list[DayCount]
    uses_per_day: list[DayCount]
    #: (bucket label, current memories whose use count is in it): "0", "1", "2–4", …
    use_counts: list[tuple[str, int]]
    never_used: int
    #: Current memories not used (nor created) in the last ``stale_after_days``.
    unused_long: int
    superseded_kept: int
    database: DatabaseSize
    stale_after_days: int = STALE_AFTER_DAYS
    read_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def total(self) -> int:
        return sum(sum(statuses.values()) for statuses in self.by_kind_and_status.values())

    @property
    def current(self) -> int:
        return sum(
            count
            for statuses in self.by_kind_and_status.values()
            for status, count in statuses.items()
            if status.is_current
        )

    @property
    def stale(self) -> int:
        """Superseded memories kept plus current ones unused for too long (disjoint)."""
        return self.superseded_kept + self.unused_long

    def count(self, kind: MemoryKind | str, status: MemoryStatus | str) -> int:
        return self.by_kind_and_status.get(MemoryKind(kind), {}).get(MemoryStatus(status), 0)


def _days(rows: list[tuple[str, int]]) -> list[DayCount]:
    return [DayCount(date.fromisoformat(day), count) for day, count in rows if day]


def _read(db: Database, path: Path | str, now: datetime, stale_after_days: int) -> MemoryHealth:
    cutoff = (now - timedelta(days=stale_after_days)).astimezone(UTC)
    figures = sql.read_all(db, cutoff.isoformat(timespec="microseconds"))
    by_kind: dict[MemoryKind, dict[MemoryStatus, int]] = {}
    for kind, status, count in figures["by_kind_and_status"]:
        by_kind.setdefault(MemoryKind(kind), {})[MemoryStatus(status)] = count
    return MemoryHealth(
        by_kind_and_status=by_kind,
        facts_per_day=_days(figures["facts_per_day"]),
        uses_per_day=_days(figures["uses_per_day"]),
        use_counts=figures["use_count_buckets"],
        never_used=figures["never_used"],
        unused_long=figures["unused_since"],
        superseded_kept=figures["superseded_kept"],
        database=DatabaseSize(*db.dialect.database_bytes(db, path)),
        stale_after_days=stale_after_days,
        read_at=now,
    )


async def read_memory_health(
    store: Store, *, now: datetime | None = None, stale_after_days: int = STALE_AFTER_DAYS
) -> MemoryHealth:
    """The figures, read on the database thread (the file sizes too: a stat can block)."""
    now = now or datetime.now(UTC)
    return await store.run(_read, store.path, now, stale_after_days)
