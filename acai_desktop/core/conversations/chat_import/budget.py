"""How much of an imported history ACAI learns facts from (each fact costs model calls).

``all``: every message the user wrote; ``none``: nothing (the conversations are still
searchable and recalled); ``months:N``: what the user wrote in the last N months.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from acai_desktop.core.conversations.chat_import.model import ImportedMessage
from acai_desktop.core.errors import InvalidInputError

#: A month, for "the last N months" (the budget is a rough choice, not a calendar).
DAYS_PER_MONTH = 30.44


@dataclass(frozen=True)
class LearningBudget:
    #: None: every message; 0: none; N: the last N months.
    months: int | None = None

    @classmethod
    def parse(cls, text: str) -> LearningBudget:
        choice = text.strip().lower()
        if choice == "all":
            return cls(None)
        if choice == "none":
            return cls(0)
        kind, _, number = choice.partition(":")
        if kind == "months" and number.isdigit() and int(number) > 0:
            return cls(int(number))
        raise InvalidInputError(
            f"{text!r} is not a learning budget: use all, none, or months:N (e.g. months:6)."
        )

    def __str__(self) -> str:
        if self.months is None:
            return "all"
        return "none" if self.months == 0 else f"months:{self.months}"

    def learns_from(self, message: ImportedMessage, now: datetime | None = None) -> bool:
        """Whether a learning job is queued for ``message`` (only the user's own words
        are mined for facts)."""
        if message.role != "user" or self.months == 0:
            return False
        if self.months is None:
            return True
        since = (now or datetime.now(UTC)) - timedelta(days=self.months * DAYS_PER_MONTH)
        return datetime.fromisoformat(message.created_at) >= since
