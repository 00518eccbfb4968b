"""The rows of new memories: validated text, scored importance, the policy's status,
a uid for export, and the embedding.

A conflict row or a successor depends on the memory it relates to, which is read inside
the write's transaction; for those this module hands the store a function of that
memory (see :mod:`~acai_desktop.core.store.memory_changes`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.validation import clean_category, clean_confidence, clean_memory_text
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryKind, MemoryStatus, Origin
from acai_desktop.core.rules.importance import score_importance
from acai_desktop.core.store.memory_changes import RowFor

ORIGIN_OF_ACTOR = {
    Actor.USER: Origin.USER,
    Actor.SYSTEM: Origin.USER,
    Actor.CRITICAL_INFO_PROCESSOR: Origin.CRITICAL_INFO,
    Actor.SUMMARY_PROCESSOR: Origin.SUMMARY,
}


@dataclass(frozen=True)
class MemoryDraft:
    """One memory for :meth:`MemoryService.remember_many`."""

    content: str
    kind: MemoryKind | str = MemoryKind.FACT
    category: str | None = None
    confidence: float = 1.0
    sources: Sequence[int] = ()
    conversation_id: int | None = None
    meta: dict | None = None


def memory_kind(kind: MemoryKind | str) -> MemoryKind:
    try:
        return MemoryKind(kind)
    except ValueError:
        choices = ", ".join(k.value for k in MemoryKind)
        raise InvalidInputError(f"Unknown memory kind {kind!r}; choose {choices}.") from None


class NewRows:
    """Builds the rows a :class:`MemoryService` inserts, under its policy and embedder."""

    def __init__(self, policy: MemoryPolicy, embedding_model: str) -> None:
        self.policy = policy
        self.embedding_model = embedding_model

    def row(
        self,
        draft: MemoryDraft,
        *,
        origin: Origin,
        explicit: bool,
        status: MemoryStatus | None = None,
        extra_meta: dict | None = None,
    ) -> dict:
        """A new memory's row without its embedding; raises InvalidInputError for a
        draft that can't be stored. Unless given, the policy picks the status."""
        content = clean_memory_text(draft.content)
        kind = memory_kind(draft.kind)
        confidence = clean_confidence(draft.confidence)
        category = clean_category(draft.category)
        importance = score_importance(
            content, kind=kind, category=category, confidence=confidence, explicit=explicit
        )
        if status is None:
            status = self.policy.decide(importance, explicit)
        meta = dict(draft.meta or {})
        meta.setdefault("uid", uuid.uuid4().hex)
        if explicit:
            meta["explicit"] = True
        meta.update(extra_meta or {})
        return {
            "kind": kind,
            "content": content,
            "category": category,
            "confidence": confidence,
            "importance": importance,
            "pinned": False,
            "status": status,
            "origin": origin,
            "user_edited": False,
            "superseded_by": None,
            "conversation_id": draft.conversation_id,
            "meta": meta,
        }

    def with_vector(self, row: dict, vector: np.ndarray) -> dict:
        row["embedding"] = vector
        row["embedding_model"] = self.embedding_model
        return row

    def conflict_for(
        self,
        content: str,
        vector: np.ndarray,
        *,
        actor: Actor,
        category: str | None = None,
        confidence: float | None = None,
        conversation_id: int | None = None,
        own_conversation: bool = False,
    ) -> RowFor:
        """The row that stores a processor's text beside the memory it may not change,
        as a ``conflict`` for the user to decide; unset fields come from that memory
        (its conversation too, with ``own_conversation``)."""

        def row_for(old: MemoryItem) -> dict:
            draft = MemoryDraft(
                content=content,
                kind=old.kind,
                category=category if category is not None else old.category,
                confidence=confidence if confidence is not None else old.confidence,
                conversation_id=old.conversation_id if own_conversation else conversation_id,
            )
            row = self.row(
                draft,
                origin=ORIGIN_OF_ACTOR[actor],
                explicit=False,
                status=MemoryStatus.CONFLICT,
                extra_meta={"conflicts_with": old.id},
            )
            return self.with_vector(row, vector)

        return row_for

    def successor_for(
        self,
        content: str,
        vector: np.ndarray,
        *,
        actor: Actor,
        category: str | None,
        confidence: float,
        conversation_id: int | None,
    ) -> RowFor:
        """The row of a memory that supersedes another: its kind, and unless given its
        category and conversation, come from the old one; a user's pin moves with it."""

        def row_for(old: MemoryItem) -> dict:
            explicit = actor == Actor.USER
            draft = MemoryDraft(
                content=content,
                kind=old.kind,
                category=category if category is not None else old.category,
                confidence=confidence,
                conversation_id=conversation_id
                if conversation_id is not None
                else old.conversation_id,
            )
            row = self.row(
                draft,
                origin=ORIGIN_OF_ACTOR[actor],
                explicit=explicit,
                status=None if old.status != MemoryStatus.ACTIVE else MemoryStatus.ACTIVE,
                extra_meta={"supersedes": old.id},
            )
            # The user's pin is about the subject, so it moves to the newer wording.
            row["pinned"] = old.pinned and actor == Actor.USER
            row["user_edited"] = explicit
            return self.with_vector(row, vector)

        return row_for
