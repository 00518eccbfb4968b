"""What the fact learner did with one message, and how many calls it made in all."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from acai_desktop.core.records.memories import MemoryItem, Suggestion
from acai_desktop.core.rules.grounding import Verdict


@dataclass
class CriticalInfoOutcome:
    message_id: int
    triage_called: bool = False
    durable: bool = False
    extraction_called: bool = False
    stored: list[MemoryItem] = field(default_factory=list)
    reinforced: list[int] = field(default_factory=list)
    #: (fact, why) for each extracted fact the grounding check refused.
    rejected: list[tuple[str, Verdict]] = field(default_factory=list)
    #: With "Ask before remembering": facts queued for the user's decision.
    suggested: list[Suggestion] = field(default_factory=list)
    #: What the user asked to forget ("Forget that I have a dog"), forgotten.
    forgotten: list[MemoryItem] = field(default_factory=list)
    reason: str | None = None


@dataclass
class CallCounts:
    gated: int = 0
    triage: int = 0
    extraction: int = 0
    reconcile: int = 0
    #: Extracted facts the grounding check refused, by reason ("unsupported", ...).
    rejected: Counter[str] = field(default_factory=Counter)
