"""What "Why didn't you use …?" answers: the item the user pointed at, the reason (one of
:class:`Reason`), where the replayed ranking put it, one sentence in plain words, and the
fixes the user may click. Plain data that the command line prints as JSON and the
window shows as text."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Reason(StrEnum):
    """Why an item fed an answer or not (the JSON's ``reason``)."""

    USED = "used"
    #: Ranked, but its words and meaning did not reach the relevance floor's bar.
    BELOW_FLOOR = "below_floor"
    #: Out of the chat's sight: another project's, a temporary memory or chat, a
    #: conflict waiting for a decision, another branch, a document not chosen.
    OTHER_SCOPE = "other_scope"
    #: Forgotten (or, for a message, a memory learned from it was).
    FORGOTTEN = "forgotten"
    #: Replaced by a newer memory.
    SUPERSEDED = "superseded"
    #: Relevant, but the prompt's budget had no room left for it.
    OVER_BUDGET = "over_budget"
    #: The search could not reach it: no shared word and weak meaning, or written after
    #: the question.
    NOT_FOUND = "not_found"
    #: In the prompt, but withheld: local only, and the answering model runs elsewhere
    #: (issue 42).
    WITHHELD = "withheld"


class ItemKind(StrEnum):
    MEMORY = "memory"
    MESSAGE = "message"
    PASSAGE = "passage"


@dataclass(frozen=True)
class ItemRef:
    """An item as the user sees it: its kind, id, text, and where it is ("memory,
    forgotten", "the chat Trip planning", "manual.pdf, p. 3")."""

    kind: ItemKind
    id: int
    text: str
    where: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "id": self.id, "text": self.text, "where": self.where}


class FixAction(StrEnum):
    """What a fix does, each through the service that owns it (core/why_not/fixes.py)."""

    PIN = "pin"  # MemoryService.pin: always in the prompt
    RESTORE = "restore"  # MemoryService.restore: a forgotten memory back
    MOVE_HERE = "move_here"  # to this chat's project (a memory or a document)
    EVERY_CHAT = "every_chat"  # out of its project: every chat sees it
    NOTE = "note"  # a note memory holding the question's words beside the item's


@dataclass(frozen=True)
class Fix:
    """One click that would let the item in next time; nothing changes until it is
    applied. ``memory_id`` or ``document_id`` names what it changes (``project_id``:
    where it moves); a note's ``text`` is the note written, in the chat
    ``conversation_id`` (so it is its project's, as anything learned there)."""

    action: FixAction
    label: str
    memory_id: int | None = None
    document_id: int | None = None
    project_id: int | None = None
    text: str | None = None
    conversation_id: int | None = None

    def to_dict(self) -> dict:
        return {
            "action": self.action.value,
            "label": self.label,
            "memory_id": self.memory_id,
            "document_id": self.document_id,
            "project_id": self.project_id,
            "text": self.text,
            "conversation_id": self.conversation_id,
        }


@dataclass(frozen=True)
class WhyNot:
    """Why ``item`` fed answer ``answer_id`` or not (``as_of``: its question's time).

    ``rank`` and ``score``: where the replayed ranking put it among its kind (memories,
    past messages, document passages) and its ranking score; for ``used``, its place
    and score in the answer's recorded sources. ``evidence`` and ``floor``: how far its
    own words, meaning and date reach, and the bar it had to reach (1, or 1.75 below
    the first ones the turn reads at the usual bar; see retrieval/floor.py). None where
    they don't apply (not ranked: pinned, in the chat's history, out of scope)."""

    answer_id: int
    item: ItemRef | None  # None: the words pasted found nothing
    reason: Reason
    sentence: str
    question: str
    as_of: str
    rank: int | None = None
    score: float | None = None
    floor: float | None = None
    evidence: float | None = None
    fixes: tuple[Fix, ...] = ()
    #: The words the user pasted, when the item was found by them.
    pasted: str | None = None
    #: Other details a tool may want (the memory's status, the turn's depth …).
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "answer_id": self.answer_id,
            "item": self.item.to_dict() if self.item is not None else None,
            "reason": self.reason.value,
            "sentence": self.sentence,
            "rank": self.rank,
            "score": self.score,
            "floor": self.floor,
            "evidence": self.evidence,
            "fixes": [fix.to_dict() for fix in self.fixes],
            "question": self.question,
            "as_of": self.as_of,
            "pasted": self.pasted,
            **({"details": self.details} if self.details else {}),
        }
