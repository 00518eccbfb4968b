"""The memory service's writes: one named transaction per change, each returning the
:class:`MemoryChange` it made, which the service publishes after the commit.

The user is in charge. A processor (``Actor.is_processor``) may never change a pinned
or user-edited memory: the check and the write run in the same transaction, so a user's
edit racing a processor's write always ends with the user's edit standing and the
processor's fact stored beside it with status ``conflict`` (``meta["conflicts_with"]``
names the memory it contradicts).

New rows come in ready-made (validated, scored and embedded by the service); a row
that depends on what is stored (a conflict row, a successor) comes from a function the
service passes, called with the stored memory inside the transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import InvalidInputError, NotFoundError, ProtectedMemoryError
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryStatus, Origin
from acai_desktop.core.rules.importance import score_importance
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.memories import (
    fetch_memory,
    memories_by_id,
    memory_history,
    memory_written_by,
    messages_created_at,
)
from acai_desktop.core.store.memory_writes import (
    add_sources,
    insert_memories,
    insert_memory,
    mark_used,
    record_write_key,
    update_memory,
)

#: Builds a new row from the stored memory it relates to.
RowFor = Callable[[MemoryItem], dict]


@dataclass
class MemoryChange:
    """What one write did, for the index and the event bus (published after commit)."""

    result: MemoryItem | None = None
    added: list[MemoryItem] = field(default_factory=list)
    changed: list[MemoryItem] = field(default_factory=list)
    removed: list[MemoryItem] = field(default_factory=list)
    #: Vectors the write stored, by memory id (the others are read back if needed).
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    #: A processor's change refused; ``result`` is the conflict row stored instead.
    refused: str | None = None
    #: Only what ranks a memory changed (use, conversation link): its vector stands.
    ranking_only: bool = False

    @property
    def touched(self) -> list[MemoryItem]:
        return [*self.added, *self.changed, *self.removed]


def check_sources(db: Database, message_ids: Iterable[int]) -> list[int]:
    wanted = sorted({int(i) for i in message_ids})
    missing = set(wanted) - set(messages_created_at(db, wanted))
    if missing:
        listed = ", ".join(str(i) for i in sorted(missing))
        raise NotFoundError(
            f"No message with id {listed}: a memory's sources must be messages of this profile."
        )
    return wanted


def _protected(item: MemoryItem, what: str, who: str = "a processor") -> str:
    reason = "pinned" if item.pinned else "edited by the user"
    return f"Memory {item.id} is {reason}, so {who} may not {what} it"


def _refusal(item: MemoryItem, what: str, who: str = "a processor") -> str:
    return (
        f"{_protected(item, what, who)}; the new fact was stored as a conflict for the user "
        "to decide."
    )


def needs_the_users_choice(actor: Actor, old: MemoryItem, *, found_by_rule: bool) -> bool:
    """The one rule for replacing a memory: a pinned or user-edited one is replaced only
    by the user's own choice of it. Not by a processor, and not where a rule picked the
    memory to replace (core.rules.slots: a new home, name or age): accepting the
    suggestion "The user moved to Porto" is a yes to that fact, not to dropping the home
    the user pinned. The new fact is then a ``conflict`` the user resolves."""
    return old.protected and (actor.is_processor or found_by_rule)


def _refuse_processor(actor: Actor, item: MemoryItem, what: str) -> None:
    if actor.is_processor and item.protected:
        raise ProtectedMemoryError(f"{_protected(item, what)}.")


def _rescored(item: MemoryItem, **changes) -> float:
    """``item``'s importance once ``changes`` (content, confidence, explicit, use) apply."""
    return score_importance(
        changes.get("content", item.content),
        kind=item.kind,
        category=changes.get("category", item.category),
        confidence=changes.get("confidence", item.confidence),
        explicit=changes.get("explicit", bool(item.meta.get("explicit"))),
        use_count=changes.get("use_count", item.use_count),
        last_used_at=changes.get("last_used_at", item.last_used_at),
    )


def add_memories(
    db: Database,
    rows: Sequence[dict],
    *,
    actor: Actor,
    sources: Sequence[Sequence[int]],
    write_key: str | None = None,
    via: str | None = None,
) -> MemoryChange:
    """New memories, their sources and history. A keyed write (one memory) that already
    happened returns the memory it made, adding nothing. ``via``: see insert_memories."""
    with db.atomic():
        if write_key is not None:
            done = memory_written_by(db, write_key)
            if done is not None:  # this job wrote it before it was cut off
                return MemoryChange(fetch_memory(db, done))
        check_sources(db, (s for group in sources for s in group))
        items = insert_memories(db, rows, actor=actor, sources=sources, via=via)
        if write_key is not None:
            record_write_key(db, write_key, items[0].id)
        vectors = {item.id: row["embedding"] for item, row in zip(items, rows, strict=True)}
        return MemoryChange(items[0] if items else None, added=items, vectors=vectors)


def _successor_to_displace(db: Database, current: MemoryItem) -> MemoryItem | None:
    """The processor-made memory that superseded ``current``, if the user's edit of
    ``current`` should win over it."""
    if current.status != MemoryStatus.SUPERSEDED or current.superseded_by is None:
        return None
    successor = fetch_memory(db, current.superseded_by)
    if successor.origin == Origin.USER or successor.protected:
        return None
    return successor if successor.status.is_current else None


def edit_memory(
    db: Database,
    memory_id: int,
    content: str,
    vector: np.ndarray,
    model: str,
    *,
    actor: Actor,
    conflict_row: RowFor,
) -> MemoryChange:
    """Change a memory's text (see :meth:`MemoryService.edit`)."""
    with db.atomic():
        current = fetch_memory(db, memory_id)
        if actor.is_processor and current.protected:
            conflict = insert_memory(db, conflict_row(current), actor=actor, action="conflict")
            return MemoryChange(conflict, added=[conflict], refused=_refusal(current, "edit"))
        change = MemoryChange(current)
        changes: dict = {"content": content, "embedding": vector, "embedding_model": model}
        explicit = bool(current.meta.get("explicit"))
        if actor == Actor.USER:
            # The user's words: confirmed now (core/memory/fact_ages.py).
            changes.update(user_edited=True, confidence=1.0, as_of=now_iso())
            explicit = True
            if current.status == MemoryStatus.TEMPORARY:
                changes["status"] = MemoryStatus.ACTIVE  # the user vouched for it
            successor = _successor_to_displace(db, current)
            if successor is not None:
                meta = {**successor.meta, "conflicts_with": current.id}
                change.changed.append(
                    update_memory(
                        db,
                        successor.id,
                        {"status": MemoryStatus.CONFLICT, "meta": meta},
                        actor=Actor.SYSTEM,
                        action="conflict",
                    )
                )
                changes.update(status=MemoryStatus.ACTIVE, superseded_by=None)
        changes["importance"] = _rescored(
            current,
            content=content,
            confidence=changes.get("confidence", current.confidence),
            explicit=explicit,
        )
        change.result = update_memory(db, memory_id, changes, actor=actor, action="edited")
        change.changed.insert(0, change.result)
        change.vectors[memory_id] = vector
        return change


def set_pinned(db: Database, memory_id: int, pinned: bool, *, actor: Actor) -> MemoryChange:
    """Pin (a temporary memory becomes active) or unpin."""
    with db.atomic():
        current = fetch_memory(db, memory_id)
        _refuse_processor(actor, current, "pin or unpin")
        if current.pinned == pinned:
            return MemoryChange(current)
        changes: dict = {"pinned": pinned}
        if pinned:
            if current.status not in (MemoryStatus.ACTIVE, MemoryStatus.TEMPORARY):
                raise InvalidInputError(
                    f"Memory {memory_id} is {current.status.value}; only an active "
                    "or temporary memory can be pinned."
                )
            changes["status"] = MemoryStatus.ACTIVE
        action = "pinned" if pinned else "unpinned"
        item = update_memory(db, memory_id, changes, actor=actor, action=action)
        return MemoryChange(item, changed=[item])


def set_local_only(db: Database, memory_id: int, local_only: bool, *, actor: Actor) -> MemoryChange:
    """Keep the memory off remote models' prompts, or let it reach them again. Only the
    user's word changes it: no processor marks or unmarks."""
    with db.atomic():
        current = fetch_memory(db, memory_id)
        if actor.is_processor:
            raise ProtectedMemoryError("A background processor can't mark a memory local only.")
        if current.local_only == local_only:
            return MemoryChange(current)
        action = "marked local only" if local_only else "no longer local only"
        item = update_memory(db, memory_id, {"local_only": local_only}, actor=actor, action=action)
        return MemoryChange(item, changed=[item])


def forget_memory(db: Database, memory_id: int, *, actor: Actor) -> MemoryChange:
    """Status ``forgotten`` (a soft delete :func:`restore_memory` undoes)."""
    with db.atomic():
        current = fetch_memory(db, memory_id)
        _refuse_processor(actor, current, "forget")
        if current.status == MemoryStatus.FORGOTTEN:
            return MemoryChange(current)
        item = update_memory(
            db, memory_id, {"status": MemoryStatus.FORGOTTEN}, actor=actor, action="forgotten"
        )
        return MemoryChange(item, removed=[item])


def restore_memory(db: Database, memory_id: int, *, actor: Actor) -> MemoryChange:
    """A forgotten memory gets back the status it had before."""
    with db.atomic():
        current = fetch_memory(db, memory_id)
        _refuse_processor(actor, current, "restore")
        if current.status != MemoryStatus.FORGOTTEN:
            raise InvalidInputError(
                f"Memory {memory_id} is {current.status.value}, not forgotten; "
                "there is nothing to restore."
            )
        previous = MemoryStatus.ACTIVE
        # The last change into ``forgotten`` (a forget, or a rejected conflict) says
        # what it was before.
        for event in reversed(memory_history(db, memory_id)):
            if event.before and (event.after or {}).get("status") == "forgotten":
                previous = MemoryStatus(event.before.get("status", "active"))
                break
        item = update_memory(db, memory_id, {"status": previous}, actor=actor, action="restored")
        return MemoryChange(item, changed=[item])


def supersede_memory(
    db: Database,
    old_id: int,
    *,
    actor: Actor,
    sources: Sequence[int],
    successor_row: RowFor,
    conflict_row: RowFor,
    write_key: str | None = None,
    found_by_rule: bool = False,
) -> MemoryChange:
    """A new memory that supersedes ``old_id`` (the old row stays, ``superseded`` and
    linked) or, when the old one needs the user's choice (:func:`needs_the_users_choice`),
    a conflict row beside it."""
    with db.atomic():
        if write_key is not None:
            done = memory_written_by(db, write_key)
            if done is not None:
                return MemoryChange(fetch_memory(db, done))  # this job did it before
        source_ids = check_sources(db, sources)
        old = fetch_memory(db, old_id)
        if needs_the_users_choice(actor, old, found_by_rule=found_by_rule):
            row = conflict_row(old)
            conflict = insert_memory(db, row, actor=actor, sources=source_ids, action="conflict")
            who = "a processor" if actor.is_processor else "a rule"
            refused = _refusal(old, "supersede", who)
            change = MemoryChange(conflict, added=[conflict], refused=refused)
        elif not old.status.is_current:
            raise InvalidInputError(
                f"Memory {old_id} is {old.status.value}; only a current memory can be superseded."
            )
        else:
            row = successor_row(old)
            new = insert_memory(db, row, actor=actor, sources=source_ids)
            old = update_memory(
                db,
                old_id,
                {"status": MemoryStatus.SUPERSEDED, "superseded_by": new.id, "pinned": False},
                actor=actor,
                action="superseded",
            )
            change = MemoryChange(new, added=[new], changed=[old])
        change.vectors[change.result.id] = row["embedding"]
        if write_key is not None:
            record_write_key(db, write_key, change.result.id)
        return change


def _conflicting_memory(db: Database, conflict: MemoryItem) -> MemoryItem | None:
    """The current memory a conflict row contradicts; None when it is gone or was
    already forgotten or superseded (accepting the conflict then replaces nothing)."""
    try:
        old = fetch_memory(db, int(conflict.meta["conflicts_with"]))
    except (KeyError, TypeError, ValueError, NotFoundError):
        return None
    return old if old.status.is_current and old.id != conflict.id else None


def resolve_conflict(
    db: Database, conflict_id: int, keep: Literal["new", "old"], *, actor: Actor
) -> MemoryChange:
    """The user's answer to a conflict row (see :meth:`MemoryService.resolve_conflict`)."""
    with db.atomic():
        conflict = fetch_memory(db, conflict_id)
        if conflict.status != MemoryStatus.CONFLICT:
            raise InvalidInputError(
                f"Memory {conflict_id} is {conflict.status.value}, not a conflict; "
                "there is nothing to resolve."
            )
        if keep == "old":
            item = update_memory(
                db,
                conflict_id,
                {"status": MemoryStatus.FORGOTTEN},
                actor=actor,
                action="conflict_rejected",
            )
            return MemoryChange(item, removed=[item])
        old = _conflicting_memory(db, conflict)
        meta = {k: v for k, v in conflict.meta.items() if k != "conflicts_with"}
        if old is not None:
            meta["supersedes"] = old.id
        meta["explicit"] = True
        at = now_iso()
        accepted = {
            "status": MemoryStatus.ACTIVE,
            "user_edited": True,
            "confidence": 1.0,
            "pinned": bool(old is not None and old.pinned),
            "importance": _rescored(conflict, confidence=1.0, explicit=True),
            "meta": meta,
        }
        new = update_memory(
            db, conflict_id, accepted, actor=actor, action="conflict_accepted", at=at
        )
        change = MemoryChange(new, changed=[new])
        if old is not None:
            superseded = {
                "status": MemoryStatus.SUPERSEDED,
                "superseded_by": conflict_id,
                "pinned": False,
            }
            change.changed.append(
                update_memory(db, old.id, superseded, actor=actor, action="superseded", at=at)
            )
        return change


def reinforce_memory(
    db: Database,
    memory_id: int,
    *,
    actor: Actor,
    sources: Sequence[int],
    confidence: float | None,
    promote: Callable[[MemoryItem], bool],
    write_key: str | None = None,
) -> MemoryChange:
    """Count the use, link the sources, keep the higher confidence, re-score, and
    promote (``promote(item)``) a temporary memory that has earned it."""
    with db.atomic():
        if write_key is not None and memory_written_by(db, write_key):
            return MemoryChange(fetch_memory(db, memory_id))  # reinforced by this job before
        source_ids = check_sources(db, sources)
        current = fetch_memory(db, memory_id)
        if not current.status.is_current:
            raise InvalidInputError(
                f"Memory {memory_id} is {current.status.value}; only a current memory "
                "can be reinforced."
            )
        if write_key is not None:
            record_write_key(db, write_key, memory_id)
        at = now_iso()
        changes: dict = {
            "use_count": current.use_count + 1,
            "last_used_at": at,
            "confidence": max(current.confidence, confidence or 0.0),
            "as_of": at,  # said again: true as of now (core/memory/fact_ages.py)
        }
        changes["importance"] = _rescored(current, **changes)
        add_sources(db, memory_id, source_ids)
        item = update_memory(db, memory_id, changes, actor=actor, action="reinforced", at=at)
        if promote(item):
            promoted = {"status": MemoryStatus.ACTIVE}
            item = update_memory(db, memory_id, promoted, actor=actor, action="promoted", at=at)
        return MemoryChange(item, changed=[item])


def count_uses(db: Database, memory_ids: Sequence[int]) -> MemoryChange:
    """One use of each memory (bookkeeping: no history, importance left alone)."""
    with db.atomic():
        mark_used(db, memory_ids, now_iso())
        items = list(memories_by_id(db, memory_ids).values())
    return MemoryChange(changed=items, ranking_only=True)
