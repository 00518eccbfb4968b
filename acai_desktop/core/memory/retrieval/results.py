"""What a search returns: ranked memories and recalled messages, with the reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from acai_desktop.core.memory.retrieval.floor import FloorItem
from acai_desktop.core.records.conversations import MESSAGE_TIER, RecalledMessage
from acai_desktop.core.records.memories import MemoryItem

# Why an item was retrieved (``reasons``; the answer's sources keep them).
LEXICAL = "lexical"
SEMANTIC = "semantic"
PINNED = "pinned"
RECENT = "recent"
THIS_CONVERSATION = "this_conversation"
AUTHOR = "author"  # a recalled message said by someone the question names
ASKER = "asker"  # a recalled message the user wrote, on a question about themselves ("I")
ON_DATE = "on_date"  # a recalled message written on a day (or in a month) the question names


@dataclass
class RetrievedMemory:
    memory: MemoryItem
    rank: int  # 1-based
    score: float
    reasons: list[str] = field(default_factory=list)
    # Its evidence passes the relevance floor (see floor.py): only such items (and
    # pinned memories) go into a prompt.
    relevant: bool = True
    # What the floor read of it (its words, meaning and date against its kind's bars;
    # None: not judged), kept for "Why didn't you use …?" (core/why_not).
    floor_item: FloorItem | None = None

    @property
    def tier(self) -> str:
        """ "fact", "summary" or "note" (the memory's kind); see RetrievedMessage."""
        return self.memory.kind.value


@dataclass
class RetrievedMessage:
    """A message of a past conversation, recalled (the ``message`` tier)."""

    message: RecalledMessage
    rank: int  # 1-based, among every tier
    score: float
    reasons: list[str] = field(default_factory=list)
    relevant: bool = True
    floor_item: FloorItem | None = None

    tier = MESSAGE_TIER


Retrieved = RetrievedMemory | RetrievedMessage
