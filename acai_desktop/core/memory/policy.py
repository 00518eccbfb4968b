"""The memory policy: which candidate memories go to long-term memory.

A memory scoring below ``long_term_threshold`` is still kept, as ``temporary``: visible
in the panel, not retrieved. When later messages reinforce it ``promote_after_uses``
times, or its importance rises past the threshold, it is promoted to ``active``. What the
user asks to remember explicitly is never filtered.
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus


@dataclass(frozen=True)
class MemoryPolicy:
    long_term_threshold: float = 0.35
    promote_after_uses: int = 2

    def __post_init__(self) -> None:
        if not 0.0 <= self.long_term_threshold <= 1.0:
            raise InvalidInputError(
                f"long_term_threshold must be between 0 and 1, not {self.long_term_threshold}"
            )
        if self.promote_after_uses < 1:
            raise InvalidInputError(
                f"promote_after_uses must be at least 1, not {self.promote_after_uses}"
            )

    def decide(self, importance: float, explicit: bool) -> MemoryStatus:
        """Status of a new memory."""
        if explicit or importance >= self.long_term_threshold:
            return MemoryStatus.ACTIVE
        return MemoryStatus.TEMPORARY

    def temporary_explanation(self) -> str:
        """What a Temporary badge means, for the person looking at it."""
        uses = self.promote_after_uses
        times = {1: "once more", 2: "twice more"}.get(uses, f"{uses} more times")
        return (
            "Temporary: remembered for now, but not used in answers. It looked passing "
            "(a mood, a plan for today, the weather) or unsure. It becomes long-term if you "
            f"mention it {times}, or at once if you pin or edit it; until then it stays out "
            "of every answer. Forget it if it is wrong."
        )

    def should_promote(self, item: MemoryItem) -> bool:
        """Whether a temporary memory has earned long-term status (after a reinforcement)."""
        return item.status == MemoryStatus.TEMPORARY and (
            item.use_count >= self.promote_after_uses or item.importance >= self.long_term_threshold
        )
