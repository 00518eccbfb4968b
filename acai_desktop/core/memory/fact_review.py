"""The Review queue (issue 43, item 1): the facts past their lifetime, oldest first, a
few a week (core/memory/fact_ages.py), and the user's answers about them: *Still true*
(``MemoryService.confirm``), *Edit* (``edit``), *No longer true* (``retire``).

The lifetimes are read from the profile's ``fact-lifetimes.json`` again when the file
changes; the clock is the caller's, so a test can age a fact without waiting a year.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from acai_desktop.core.memory.fact_ages import (
    FILE_NAME,
    Lifetimes,
    as_of_text,
    due_for_review,
    is_stale,
    load_lifetimes,
)
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.records.memories import MemoryItem, MemoryKind
from acai_desktop.core.store import fact_reviews
from acai_desktop.core.store.memories import MemoryFilter


def utc_now() -> datetime:
    return datetime.now(UTC)


class FactAges:
    """The profile's lifetime rules (``data_dir`` None: the usual ones, as in evaluations)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self._rules, self._stamp = Lifetimes(), None
        #: What was wrong with the user's file, said once per version of it.
        self.problems: list[str] = []

    async def rules(self) -> Lifetimes:
        if self.data_dir is None:
            return self._rules
        stamp = await asyncio.to_thread(self._file_stamp)
        if stamp != self._stamp:
            self._rules, self.problems = await asyncio.to_thread(load_lifetimes, self.data_dir)
            self._stamp = stamp
        return self._rules

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            stat = (self.data_dir / FILE_NAME).stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    async def stale_marks(self, memories: list[MemoryItem], now: datetime) -> dict[int, str]:
        """``{memory id: "as of March 2025"}`` for the facts past their lifetime at ``now``."""
        rules = await self.rules()
        return {m.id: as_of_text(m) for m in memories if is_stale(m, now, rules)}


class FactReview:
    def __init__(
        self,
        memories: MemoryService,
        ages: FactAges,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.memories = memories
        self.ages = ages
        self.clock = clock

    async def due(self) -> list[MemoryItem]:
        """The facts to ask about now: past their lifetime, oldest said first, as many
        as the week still allows (answers given in the last seven days count)."""
        now = self.clock()
        facts = await self.memories.list(MemoryFilter(kinds=[MemoryKind.FACT], statuses=["active"]))
        answered = await self.memories.store.run(
            fact_reviews.reviews_since, fact_reviews.week_before(now)
        )
        return due_for_review(facts, now, await self.ages.rules(), answered)

    async def confirm(self, memory_id: int) -> MemoryItem:
        """*Still true*: the fact is as of now (by this review's clock)."""
        return await self.memories.confirm(memory_id, at=self._now_iso())

    async def retire(self, memory_id: int) -> MemoryItem:
        """*No longer true*: superseded, by nothing; its history keeps it."""
        return await self.memories.retire(memory_id, at=self._now_iso())

    def _now_iso(self) -> str:
        return self.clock().isoformat(timespec="microseconds")
