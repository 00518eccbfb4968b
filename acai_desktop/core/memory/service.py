"""The memory service: every change to long-term memory goes through here.

It validates text, scores importance, applies the policy, embeds, writes (one
transaction per operation, on the database thread), keeps the :class:`VectorIndex`
equal to the set of ``active`` memories, and then announces the change on the
:class:`EventBus`:

* ``MEMORY_ADDED`` — a new row exists (remember, supersede's successor, a conflict row);
* ``MEMORY_CHANGED`` — an existing row changed, its status included (restore, supersede's
  predecessor, pin, reinforce, use);
* ``MEMORY_REMOVED`` — the row left the user's memory (forget; it can be restored).

Every payload is the :class:`MemoryItem` as stored; a view decides by its ``status``
whether the item belongs in it.

The user is in charge. A *processor* (``Actor.SUMMARY_PROCESSOR`` or
``Actor.CRITICAL_INFO_PROCESSOR``) may never change a pinned or user-edited memory:
the check and the write run in the same database transaction, so a user's edit racing
a processor's write always ends with the user's edit standing and the processor's fact
stored beside it with status ``conflict`` (``meta["conflicts_with"]`` names the
memory it contradicts).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from sqlite_utils import Database

from acai_desktop.core import events as ev
from acai_desktop.core.clock import now_iso
from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.errors import InvalidInputError, NotFoundError, ProtectedMemoryError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.episodic import EpisodicIndex
from acai_desktop.core.memory.importance import score_importance
from acai_desktop.core.memory.panel_view import (
    DEFAULT_PAGE_SIZE,
    PanelKey,
    PanelPage,
    PanelQuery,
    count_panel,
    read_panel_page,
)
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.validation import (
    clean_category,
    clean_confidence,
    clean_memory_text,
)
from acai_desktop.core.memory.vector_index import RankingFacts, VectorIndex
from acai_desktop.core.records import (
    Actor,
    MemoryEvent,
    MemoryItem,
    MemoryKind,
    MemoryStatus,
    Origin,
)
from acai_desktop.core.store import memory_batches as batches
from acai_desktop.core.store import search
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memories import (
    MemoryFilter,
    MemoryRepository,
    _fetch,
    add_sources,
    insert_memory,
    memory_history,
    update_memory,
)

log = logging.getLogger(__name__)

PROCESSORS = frozenset({Actor.SUMMARY_PROCESSOR, Actor.CRITICAL_INFO_PROCESSOR})
ORIGIN_OF_ACTOR = {
    Actor.USER: Origin.USER,
    Actor.SYSTEM: Origin.USER,
    Actor.CRITICAL_INFO_PROCESSOR: Origin.CRITICAL_INFO,
    Actor.SUMMARY_PROCESSOR: Origin.SUMMARY,
}
REEMBED_BATCH = 512
# Statuses a memory can be superseded, reinforced or pinned from: it is still current.
CURRENT = frozenset({MemoryStatus.ACTIVE, MemoryStatus.TEMPORARY, MemoryStatus.CONFLICT})


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


@dataclass
class _Outcome:
    """What one write did, for the index and the event bus (published after commit)."""

    result: MemoryItem
    added: list[MemoryItem] = field(default_factory=list)
    changed: list[MemoryItem] = field(default_factory=list)
    removed: list[MemoryItem] = field(default_factory=list)
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    refused: str | None = None  # a processor's change refused; ``result`` is the conflict


def _actor(actor: Actor | str) -> Actor:
    try:
        return Actor(actor)
    except ValueError:
        raise InvalidInputError(f"Unknown actor {actor!r}.") from None


def _kind(kind: MemoryKind | str) -> MemoryKind:
    try:
        return MemoryKind(kind)
    except ValueError:
        choices = ", ".join(k.value for k in MemoryKind)
        raise InvalidInputError(f"Unknown memory kind {kind!r}; choose {choices}.") from None


def _memory_id(memory_id: object) -> int:
    if isinstance(memory_id, bool) or not isinstance(memory_id, int):
        try:
            return int(str(memory_id).strip())
        except ValueError:
            raise InvalidInputError(f"{memory_id!r} is not a memory id (a number).") from None
    return memory_id


def _check_sources(db: Database, message_ids: Iterable[int]) -> list[int]:
    wanted = sorted({int(i) for i in message_ids})
    missing = set(wanted) - set(batches.messages_created_at(db, wanted))
    if missing:
        listed = ", ".join(str(i) for i in sorted(missing))
        raise NotFoundError(
            f"No message with id {listed}: a memory's sources must be messages of this profile."
        )
    return wanted


def _protected(item: MemoryItem, what: str) -> str:
    reason = "pinned" if item.pinned else "edited by the user"
    return f"Memory {item.id} is {reason}, so a processor may not {what} it"


def _refusal(item: MemoryItem, what: str) -> str:
    return (
        f"{_protected(item, what)}; the new fact was stored as a conflict for the user to decide."
    )


class MemoryService:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        events: EventBus,
        index: VectorIndex,
        policy: MemoryPolicy | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.events = events
        self.index = index
        self.policy = policy or MemoryPolicy()
        self.repository = MemoryRepository(store)
        #: The vectors of the recallable messages (the episodic tier's semantic side).
        self.episodes = EpisodicIndex(store, embedder)

    # -- reading -------------------------------------------------------------------

    async def get(self, memory_id: int) -> MemoryItem:
        return await self.repository.get(_memory_id(memory_id))

    async def list(self, where: MemoryFilter | None = None) -> list[MemoryItem]:
        return await self.repository.list(where)

    async def count(self, where: MemoryFilter | None = None) -> int:
        """How many memories ``where`` matches (its limit and offset aside)."""
        return await self.repository.count(where)

    async def history(self, memory_id: int) -> list[MemoryEvent]:
        return await self.repository.history(_memory_id(memory_id))

    async def read_panel(
        self,
        query: PanelQuery,
        after: PanelKey | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
        with_total: bool = False,
    ) -> PanelPage:
        """A page of what the memory panel shows under ``query`` (see
        :mod:`~acai_desktop.core.memory.panel_view`), and with ``with_total`` the count."""
        return await self.store.run(read_panel_page, query, after, limit, with_total=with_total)

    async def count_panel(self, query: PanelQuery) -> int:
        return await self.store.run(count_panel, query)

    async def sources(self, memory_id: int) -> list[int]:
        memory_id = _memory_id(memory_id)

        def read(db: Database) -> list[int]:
            _fetch(db, memory_id)  # NotFoundError for an unknown id
            return batches.sources_of(db, [memory_id])[memory_id]

        return await self.store.run(read)

    async def similar(
        self,
        content: str,
        *,
        k: int = 5,
        kinds: Iterable[MemoryKind | str] | None = None,
        include_temporary: bool = False,
    ) -> list[tuple[MemoryItem, float]]:
        """Active memories closest in meaning to ``content`` (cosine), closest first.

        The processors use this to reconcile a new fact with what is already known; they
        ask for ``include_temporary`` memories too, which the index (active memories, for
        retrieval) doesn't hold: a fact said again must reinforce its temporary memory
        (and so earn its promotion), not become a second one.
        """
        if not content.strip():
            return []
        wanted = {str(kind) for kind in kinds} if kinds else None
        if not len(self.index) and not include_temporary:
            return []
        vector = (await self._embed([content]))[0]
        score_of: dict[int, float] = {}
        if len(self.index):
            # Ask for more than k: some neighbours may be of another kind.
            ids, scores = self.index.top_k(vector, k if wanted is None else k * 4)
            score_of.update({int(i): float(s) for i, s in zip(ids, scores, strict=True)})
        if include_temporary:
            ids, vectors = await self.store.run(
                batches.temporary_embeddings,
                self.embedder.name,
                self.embedder.dimensions,
                sorted(wanted) if wanted else None,
            )
            if len(ids):
                norms = np.linalg.norm(vectors, axis=1) * (float(np.linalg.norm(vector)) or 1.0)
                scores = (vectors @ vector) / np.where(norms == 0, 1.0, norms)
                best = np.argsort(-scores)[:k]
                score_of.update({int(ids[i]): float(scores[i]) for i in best})
        if not score_of:
            return []
        items = await self.store.run(batches.fetch_memories, list(score_of))
        matches = [(item, score_of[item.id]) for item in items]
        if wanted is not None:
            matches = [(item, score) for item, score in matches if str(item.kind) in wanted]
        matches.sort(key=lambda match: -match[1])
        return matches[:k]

    async def stored_from_messages(self, message_ids: Iterable[int]) -> list[MemoryItem]:
        """Memories whose sources include any of these messages, oldest first."""
        ids = [int(m) for m in message_ids]
        return await self.store.run(batches.memories_from_messages, ids)

    # -- creating ------------------------------------------------------------------

    async def remember(
        self,
        content: str,
        *,
        kind: MemoryKind | str = MemoryKind.FACT,
        category: str | None = None,
        confidence: float = 1.0,
        origin: Origin | str = Origin.USER,
        actor: Actor | str = Actor.USER,
        sources: Iterable[int] = (),
        conversation_id: int | None = None,
        explicit: bool = False,
        meta: dict | None = None,
        write_key: str | None = None,
    ) -> MemoryItem:
        """Store one memory; unless ``explicit``, the policy picks active or temporary.

        ``write_key`` names this write (a job and its step): if a write with that key
        already happened (the job is running again), the memory it made is returned and
        nothing is written."""
        items = await self.remember_many(
            [
                MemoryDraft(
                    content=content,
                    kind=kind,
                    category=category,
                    confidence=confidence,
                    sources=tuple(sources),
                    conversation_id=conversation_id,
                    meta=meta,
                )
            ],
            origin=origin,
            actor=actor,
            explicit=explicit,
            write_key=write_key,
        )
        return items[0]

    async def remember_many(
        self,
        drafts: Sequence[MemoryDraft | str],
        *,
        origin: Origin | str = Origin.USER,
        actor: Actor | str = Actor.USER,
        explicit: bool = False,
        write_key: str | None = None,
    ) -> list[MemoryItem]:
        """Store many memories: one embedding batch, one transaction, one statement per
        table. All are validated before anything is written; any error writes nothing.
        ``write_key`` (one draft only): see :meth:`remember`."""
        actor = _actor(actor)
        if write_key is not None and len(drafts) != 1:
            raise ValueError("a write key names the write of one memory")
        try:
            origin = Origin(origin)
        except ValueError:
            raise InvalidInputError(f"Unknown origin {origin!r}.") from None
        rows, sources = [], []
        for position, draft in enumerate(drafts):
            if isinstance(draft, str):
                draft = MemoryDraft(content=draft)
            try:
                rows.append(self._new_row(draft, origin=origin, explicit=explicit))
            except InvalidInputError as error:
                if len(drafts) == 1:
                    raise
                raise InvalidInputError(f"Memory {position + 1}: {error}") from None
            sources.append([int(s) for s in draft.sources])
        if not rows:
            return []
        vectors = await self._embed([row["content"] for row in rows])
        for row, vector in zip(rows, vectors, strict=True):
            row["embedding"] = vector
            row["embedding_model"] = self.embedder.name

        def write(db: Database) -> list[MemoryItem] | MemoryItem:
            with db.atomic():
                if write_key is not None:
                    done = batches.memory_written_by(db, write_key)
                    if done is not None:
                        return _fetch(db, done)  # this job wrote it before it was cut off
                _check_sources(db, (s for group in sources for s in group))
                items = batches.insert_memories(db, rows, actor=actor, sources=sources)
                if write_key is not None:
                    batches.record_write_key(db, write_key, items[0].id)
                return items

        items = await self.store.run(write)
        if isinstance(items, MemoryItem):
            return [items]
        for item, vector in zip(items, vectors, strict=True):
            self.index_item(item, vector)
        for item in items:
            self.events.emit(ev.MEMORY_ADDED, item)
        return items

    def _new_row(
        self,
        draft: MemoryDraft,
        *,
        origin: Origin,
        explicit: bool,
        status: MemoryStatus | None = None,
        extra_meta: dict | None = None,
    ) -> dict:
        content = clean_memory_text(draft.content)
        kind = _kind(draft.kind)
        confidence = clean_confidence(draft.confidence)
        importance = score_importance(content, kind=kind, confidence=confidence, explicit=explicit)
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
            "category": clean_category(draft.category),
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

    def _conflict_row(
        self,
        old: MemoryItem,
        content: str,
        vector: np.ndarray,
        *,
        actor: Actor,
        category: str | None,
        confidence: float,
        conversation_id: int | None,
    ) -> dict:
        row = self._new_row(
            MemoryDraft(
                content=content,
                kind=old.kind,
                category=category if category is not None else old.category,
                confidence=confidence,
                conversation_id=conversation_id,
            ),
            origin=ORIGIN_OF_ACTOR[actor],
            explicit=False,
            status=MemoryStatus.CONFLICT,
            extra_meta={"conflicts_with": old.id},
        )
        row["embedding"] = vector
        row["embedding_model"] = self.embedder.name
        return row

    # -- changing ------------------------------------------------------------------

    async def edit(
        self, memory_id: int, content: str, *, actor: Actor | str = Actor.USER
    ) -> MemoryItem:
        """Change a memory's text.

        A user's edit marks it ``user_edited`` (protected from processors, confidence 1;
        a temporary memory becomes active) and, if a processor had superseded it
        meanwhile, puts it back and turns the processor's successor into a ``conflict``.
        A processor's edit of a protected memory raises :class:`ProtectedMemoryError`
        after storing its text as a conflict."""
        memory_id = _memory_id(memory_id)
        actor = _actor(actor)
        content = clean_memory_text(content)
        vector = (await self._embed([content]))[0]

        def write(db: Database) -> _Outcome:
            with db.atomic():
                current = _fetch(db, memory_id)
                if actor in PROCESSORS and current.protected:
                    row = self._conflict_row(
                        current,
                        content,
                        vector,
                        actor=actor,
                        category=None,
                        confidence=current.confidence,
                        conversation_id=current.conversation_id,
                    )
                    conflict = insert_memory(db, row, actor=actor, action="conflict")
                    return _Outcome(conflict, added=[conflict], refused=_refusal(current, "edit"))
                outcome = _Outcome(current)
                changes: dict = {
                    "content": content,
                    "embedding": vector,
                    "embedding_model": self.embedder.name,
                }
                explicit = bool(current.meta.get("explicit"))
                if actor == Actor.USER:
                    changes.update(user_edited=True, confidence=1.0)
                    explicit = True
                    if current.status == MemoryStatus.TEMPORARY:
                        changes["status"] = MemoryStatus.ACTIVE  # the user vouched for it
                    successor = self._successor_to_displace(db, current)
                    if successor is not None:
                        meta = {**successor.meta, "conflicts_with": current.id}
                        outcome.changed.append(
                            update_memory(
                                db,
                                successor.id,
                                {"status": MemoryStatus.CONFLICT, "meta": meta},
                                actor=Actor.SYSTEM,
                                action="conflict",
                            )
                        )
                        changes.update(status=MemoryStatus.ACTIVE, superseded_by=None)
                changes["importance"] = score_importance(
                    content,
                    kind=current.kind,
                    confidence=changes.get("confidence", current.confidence),
                    explicit=explicit,
                    use_count=current.use_count,
                    last_used_at=current.last_used_at,
                )
                outcome.result = update_memory(db, memory_id, changes, actor=actor, action="edited")
                outcome.changed.insert(0, outcome.result)
                outcome.vectors[memory_id] = vector
                return outcome

        return await self._apply(write)

    @staticmethod
    def _successor_to_displace(db: Database, current: MemoryItem) -> MemoryItem | None:
        """The processor-made memory that superseded ``current``, if the user's edit of
        ``current`` should win over it."""
        if current.status != MemoryStatus.SUPERSEDED or current.superseded_by is None:
            return None
        successor = _fetch(db, current.superseded_by)
        if successor.origin == Origin.USER or successor.protected:
            return None
        if successor.status not in CURRENT:
            return None
        return successor

    async def pin(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Always in context, never touched by processors. A temporary memory becomes active."""
        return await self._set_pinned(memory_id, True, actor)

    async def unpin(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        return await self._set_pinned(memory_id, False, actor)

    async def _set_pinned(self, memory_id: int, pinned: bool, actor: Actor | str) -> MemoryItem:
        memory_id = _memory_id(memory_id)
        actor = _actor(actor)

        def write(db: Database) -> _Outcome:
            with db.atomic():
                current = _fetch(db, memory_id)
                self._refuse_processor(actor, current, "pin or unpin")
                if current.pinned == pinned:
                    return _Outcome(current)
                changes: dict = {"pinned": pinned}
                if pinned:
                    if current.status not in (MemoryStatus.ACTIVE, MemoryStatus.TEMPORARY):
                        raise InvalidInputError(
                            f"Memory {memory_id} is {current.status.value}; only an active "
                            "or temporary memory can be pinned."
                        )
                    changes["status"] = MemoryStatus.ACTIVE
                item = update_memory(
                    db, memory_id, changes, actor=actor, action="pinned" if pinned else "unpinned"
                )
                return _Outcome(item, changed=[item])

        return await self._apply(write)

    async def forget(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Soft delete: status ``forgotten``, out of retrieval, back with :meth:`restore`."""
        memory_id = _memory_id(memory_id)
        actor = _actor(actor)

        def write(db: Database) -> _Outcome:
            with db.atomic():
                current = _fetch(db, memory_id)
                self._refuse_processor(actor, current, "forget")
                if current.status == MemoryStatus.FORGOTTEN:
                    return _Outcome(current)
                item = update_memory(
                    db,
                    memory_id,
                    {"status": MemoryStatus.FORGOTTEN},
                    actor=actor,
                    action="forgotten",
                )
                return _Outcome(item, removed=[item])

        return await self._apply(write)

    async def restore(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Undo :meth:`forget`: the memory gets back the status it had before."""
        memory_id = _memory_id(memory_id)
        actor = _actor(actor)

        def write(db: Database) -> _Outcome:
            with db.atomic():
                current = _fetch(db, memory_id)
                self._refuse_processor(actor, current, "restore")
                if current.status != MemoryStatus.FORGOTTEN:
                    raise InvalidInputError(
                        f"Memory {memory_id} is {current.status.value}, not forgotten; "
                        "there is nothing to restore."
                    )
                previous = MemoryStatus.ACTIVE
                # The last change into ``forgotten`` (a forget, or a rejected conflict)
                # says what it was before.
                for event in reversed(memory_history(db, memory_id)):
                    if event.before and (event.after or {}).get("status") == "forgotten":
                        previous = MemoryStatus(event.before.get("status", "active"))
                        break
                item = update_memory(
                    db, memory_id, {"status": previous}, actor=actor, action="restored"
                )
                return _Outcome(item, changed=[item])

        return await self._apply(write)

    async def supersede(
        self,
        old_id: int,
        new_content: str,
        *,
        actor: Actor | str = Actor.USER,
        category: str | None = None,
        confidence: float = 1.0,
        sources: Iterable[int] = (),
        conversation_id: int | None = None,
    ) -> MemoryItem:
        """Replace a memory by a new one; the old row stays, ``superseded`` and linked.

        A processor superseding a protected memory is refused with
        :class:`ProtectedMemoryError` (its ``conflict`` attribute is the new fact, stored
        with status ``conflict``). Processors that expect refusals call
        :meth:`propose_change` instead.
        """
        outcome = await self._supersede(
            old_id,
            new_content,
            actor=actor,
            category=category,
            confidence=confidence,
            sources=sources,
            conversation_id=conversation_id,
        )
        if outcome.refused:
            raise ProtectedMemoryError(outcome.refused, conflict=outcome.result)
        return outcome.result

    async def propose_change(
        self,
        old_id: int,
        new_content: str,
        *,
        actor: Actor | str,
        category: str | None = None,
        confidence: float = 1.0,
        sources: Iterable[int] = (),
        conversation_id: int | None = None,
        write_key: str | None = None,
    ) -> MemoryItem:
        """A processor's refinement or contradiction of ``old_id``: the new memory, which
        supersedes the old one, or, if the old one is protected, has status ``conflict``.
        ``write_key``: a keyed write happens once (see :meth:`remember`)."""
        outcome = await self._supersede(
            old_id,
            new_content,
            actor=actor,
            category=category,
            confidence=confidence,
            sources=sources,
            conversation_id=conversation_id,
            write_key=write_key,
        )
        if outcome.refused:
            log.info("%s", outcome.refused)
        return outcome.result

    async def _supersede(
        self,
        old_id: int,
        new_content: str,
        *,
        actor: Actor | str,
        category: str | None,
        confidence: float,
        sources: Iterable[int],
        conversation_id: int | None,
        write_key: str | None = None,
    ) -> _Outcome:
        old_id = _memory_id(old_id)
        actor = _actor(actor)
        content = clean_memory_text(new_content)
        confidence = clean_confidence(confidence)
        category = clean_category(category)
        sources = [int(s) for s in sources]
        vector = (await self._embed([content]))[0]

        def write(db: Database) -> _Outcome:
            with db.atomic():
                if write_key is not None:
                    done = batches.memory_written_by(db, write_key)
                    if done is not None:
                        return _Outcome(_fetch(db, done))  # this job did it before
                outcome = supersede(db)
                if write_key is not None:
                    batches.record_write_key(db, write_key, outcome.result.id)
                return outcome

        def supersede(db: Database) -> _Outcome:
            source_ids = _check_sources(db, sources)
            old = _fetch(db, old_id)
            if actor in PROCESSORS and old.protected:
                row = self._conflict_row(
                    old,
                    content,
                    vector,
                    actor=actor,
                    category=category,
                    confidence=confidence,
                    conversation_id=conversation_id,
                )
                conflict = insert_memory(
                    db, row, actor=actor, sources=source_ids, action="conflict"
                )
                return _Outcome(conflict, added=[conflict], refused=_refusal(old, "supersede"))
            if old.status not in CURRENT:
                raise InvalidInputError(
                    f"Memory {old_id} is {old.status.value}; only a current memory "
                    "can be superseded."
                )
            explicit = actor == Actor.USER
            status = None if old.status != MemoryStatus.ACTIVE else MemoryStatus.ACTIVE
            row = self._new_row(
                MemoryDraft(
                    content=content,
                    kind=old.kind,
                    category=category if category is not None else old.category,
                    confidence=confidence,
                    conversation_id=conversation_id
                    if conversation_id is not None
                    else old.conversation_id,
                ),
                origin=ORIGIN_OF_ACTOR[actor],
                explicit=explicit,
                status=status,
                extra_meta={"supersedes": old.id},
            )
            # The user's pin is about the subject, so it moves to the newer wording.
            row["pinned"] = old.pinned and actor == Actor.USER
            row["user_edited"] = explicit
            row["embedding"] = vector
            row["embedding_model"] = self.embedder.name
            new = insert_memory(db, row, actor=actor, sources=source_ids)
            old = update_memory(
                db,
                old_id,
                {"status": MemoryStatus.SUPERSEDED, "superseded_by": new.id, "pinned": False},
                actor=actor,
                action="superseded",
            )
            return _Outcome(new, added=[new], changed=[old], vectors={new.id: vector})

        return await self._apply_outcome(write)

    async def resolve_conflict(
        self,
        conflict_id: int,
        *,
        keep: Literal["new", "old"],
        actor: Actor | str = Actor.USER,
    ) -> MemoryItem:
        """The user's answer to a conflict row; returns the conflict row as it ends up.

        ``keep="new"``: the conflict row becomes an active, user-edited memory (the user
        approved it, so processors can't change it) and the memory it contradicts, if it
        is still current, becomes ``superseded`` by it, handing over its pin, as when the
        user supersedes a memory. ``keep="old"``: the conflict row is forgotten (it can be
        restored, as a conflict again) and the old memory is left as it is.
        """
        conflict_id = _memory_id(conflict_id)
        actor = _actor(actor)
        if keep not in ("new", "old"):
            raise InvalidInputError(f"keep must be 'new' or 'old', not {keep!r}.")
        if actor != Actor.USER:
            # A conflict exists because a processor may not decide; nor may anyone else.
            raise ProtectedMemoryError(
                f"Only the user can resolve a conflict; {actor.value} may not."
            )

        def write(db: Database) -> _Outcome:
            with db.atomic():
                conflict = _fetch(db, conflict_id)
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
                    return _Outcome(item, removed=[item])
                old = self._conflicting_memory(db, conflict)
                meta = {k: v for k, v in conflict.meta.items() if k != "conflicts_with"}
                if old is not None:
                    meta["supersedes"] = old.id
                meta["explicit"] = True
                at = now_iso()
                new = update_memory(
                    db,
                    conflict_id,
                    {
                        "status": MemoryStatus.ACTIVE,
                        "user_edited": True,
                        "confidence": 1.0,
                        "pinned": bool(old is not None and old.pinned),
                        "importance": score_importance(
                            conflict.content,
                            kind=conflict.kind,
                            confidence=1.0,
                            explicit=True,
                            use_count=conflict.use_count,
                            last_used_at=conflict.last_used_at,
                        ),
                        "meta": meta,
                    },
                    actor=actor,
                    action="conflict_accepted",
                    at=at,
                )
                outcome = _Outcome(new, changed=[new])
                if old is not None:
                    outcome.changed.append(
                        update_memory(
                            db,
                            old.id,
                            {
                                "status": MemoryStatus.SUPERSEDED,
                                "superseded_by": conflict_id,
                                "pinned": False,
                            },
                            actor=actor,
                            action="superseded",
                            at=at,
                        )
                    )
                return outcome

        return await self._apply(write)

    @staticmethod
    def _conflicting_memory(db: Database, conflict: MemoryItem) -> MemoryItem | None:
        """The current memory a conflict row contradicts; None when it is gone or was
        already forgotten or superseded (accepting the conflict then replaces nothing)."""
        try:
            old = _fetch(db, int(conflict.meta["conflicts_with"]))
        except (KeyError, TypeError, ValueError, NotFoundError):
            return None
        return old if old.status in CURRENT and old.id != conflict.id else None

    async def reinforce(
        self,
        memory_id: int,
        *,
        actor: Actor | str,
        source_message_ids: Iterable[int] = (),
        confidence: float | None = None,
        write_key: str | None = None,
    ) -> MemoryItem:
        """A later message said the same thing again: count the use, link the source,
        keep the higher confidence, re-score, and promote a temporary memory that has
        earned it. Allowed on protected memories: it changes no content.
        ``write_key``: a keyed write happens once (see :meth:`remember`)."""
        memory_id = _memory_id(memory_id)
        actor = _actor(actor)
        if confidence is not None:
            confidence = clean_confidence(confidence)
        sources = [int(s) for s in source_message_ids]

        def write(db: Database) -> _Outcome:
            with db.atomic():
                if write_key is not None and batches.memory_written_by(db, write_key):
                    return _Outcome(_fetch(db, memory_id))  # reinforced by this job before
                source_ids = _check_sources(db, sources)
                current = _fetch(db, memory_id)
                if current.status not in CURRENT:
                    raise InvalidInputError(
                        f"Memory {memory_id} is {current.status.value}; only a current memory "
                        "can be reinforced."
                    )
                if write_key is not None:
                    batches.record_write_key(db, write_key, memory_id)
                at = now_iso()
                new_confidence = max(current.confidence, confidence or 0.0)
                use_count = current.use_count + 1
                changes: dict = {
                    "use_count": use_count,
                    "last_used_at": at,
                    "confidence": new_confidence,
                    "importance": score_importance(
                        current.content,
                        kind=current.kind,
                        confidence=new_confidence,
                        explicit=bool(current.meta.get("explicit")),
                        use_count=use_count,
                        last_used_at=at,
                    ),
                }
                add_sources(db, memory_id, source_ids)
                item = update_memory(
                    db, memory_id, changes, actor=actor, action="reinforced", at=at
                )
                if self.policy.should_promote(item):
                    item = update_memory(
                        db,
                        memory_id,
                        {"status": MemoryStatus.ACTIVE},
                        actor=actor,
                        action="promoted",
                        at=at,
                    )
                return _Outcome(item, changed=[item])

        return await self._apply(write)

    async def mark_used(self, memory_ids: Iterable[int]) -> list[MemoryItem]:
        """Count one use of each memory (the orchestrator, after retrieval).

        Usage is bookkeeping, not a change of what the memory says, so it writes no
        history row (a history event per answer would bury the user's own changes) and
        leaves importance alone; :func:`score_importance` takes use into account
        whenever a memory is re-scored, and retrieval may read use_count directly.
        """
        ids = [_memory_id(i) for i in dict.fromkeys(memory_ids)]
        if not ids:
            return []

        def write(db: Database) -> list[MemoryItem]:
            with db.atomic():
                batches.mark_used(db, ids, now_iso())
                return batches.fetch_memories(db, ids)

        items = await self.store.run(write)
        for item in items:
            self.index.set_facts(item.id, RankingFacts.of(item))  # last used: recency
            self.events.emit(ev.MEMORY_CHANGED, item)
        return items

    # -- the index -----------------------------------------------------------------

    async def load_index(self, *, reembed: bool = True) -> int:
        """Fill the index from the stored embeddings of active memories; then, with
        ``reembed``, embed every memory whose vector came from another embedder (see
        :meth:`reembed_stale`). Returns the number of memories in the index."""

        def fill(db: Database) -> None:
            # On the database thread, in one go: copying 100k vectors into the index
            # would stall the window's loop for a tenth of a second or more, and a write
            # queued after this read reaches the index only after the load (no lost
            # update). The index has its own lock for readers on other threads.
            self.index.load(
                *batches.active_embeddings(db, self.embedder.name, self.embedder.dimensions)
            )
            self.index.set_facts_many(*search.active_ranking_facts(db))

        await self.store.run(fill)
        await self.episodes.load()
        if reembed:
            await self.reembed_stale()
        return len(self.index)

    async def reembed_stale(self, batch_size: int = REEMBED_BATCH) -> int:
        """Embed, in batches and active memories first, every memory whose embedding is
        missing or from another embedder, emitting ``EMBEDDING_PROGRESS``
        ``{"done": n, "total": m}`` after each batch; then embeds the recallable
        messages that have no vector from this embedder. Safe to run as a background
        task while the user works: a memory edited meanwhile keeps its newer vector."""
        total = await self._reembed_memories(batch_size)
        await self.episodes.embed_missing(batch_size=batch_size)
        return total

    async def _reembed_memories(self, batch_size: int) -> int:
        stale = await self.store.run(
            batches.stale_embeddings, self.embedder.name, self.embedder.dimensions
        )
        total = len(stale)
        if not total:
            return 0
        self.events.emit(ev.EMBEDDING_PROGRESS, {"done": 0, "total": total})
        done = 0
        for start in range(0, total, batch_size):
            batch = stale[start : start + batch_size]
            ids = [row[0] for row in batch]
            contents = [row[1] for row in batch]
            vectors = await self._embed(contents)

            def write(
                db: Database, ids=ids, vectors=vectors, contents=contents
            ) -> dict[int, MemoryItem]:
                with db.atomic():
                    batches.set_embeddings(db, ids, vectors, self.embedder.name, contents)
                return {
                    item.id: item
                    for item in batches.fetch_memories(db, ids)
                    if item.status == MemoryStatus.ACTIVE and item.content in contents
                }

            active = await self.store.run(write)
            for memory_id, content, vector in zip(ids, contents, vectors, strict=True):
                if memory_id in active and content:
                    self.index.upsert(memory_id, vector, RankingFacts.of(active[memory_id]))
            done += len(batch)
            self.events.emit(ev.EMBEDDING_PROGRESS, {"done": done, "total": total})
        return total

    def index_item(self, item: MemoryItem, vector: np.ndarray | None) -> None:
        """Keep the index equal to the active memories after ``item`` was written."""
        if item.status == MemoryStatus.ACTIVE and vector is not None:
            self.index.upsert(item.id, vector, RankingFacts.of(item))
        else:
            self.index.remove(item.id)

    async def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = await self.embedder.embed(texts)
        return np.asarray(vectors, dtype=np.float32)

    # -- plumbing ------------------------------------------------------------------

    @staticmethod
    def _refuse_processor(actor: Actor, item: MemoryItem, what: str) -> None:
        if actor in PROCESSORS and item.protected:
            raise ProtectedMemoryError(f"{_protected(item, what)}.")

    async def _apply(self, write) -> MemoryItem:
        outcome = await self._apply_outcome(write)
        if outcome.refused:
            raise ProtectedMemoryError(outcome.refused, conflict=outcome.result)
        return outcome.result

    async def _apply_outcome(self, write) -> _Outcome:
        """Run ``write`` on the database thread, then bring the index in line and
        announce the changes (only after the transaction has committed)."""
        outcome: _Outcome = await self.store.run(write)
        touched = [*outcome.added, *outcome.changed, *outcome.removed]
        await self._sync_touched(touched, outcome.vectors)
        for item in outcome.added:
            self.events.emit(ev.MEMORY_ADDED, item)
        for item in outcome.changed:
            self.events.emit(ev.MEMORY_CHANGED, item)
        for item in outcome.removed:
            self.events.emit(ev.MEMORY_REMOVED, item)
        return outcome

    async def _sync_touched(self, items: list[MemoryItem], known: dict[int, np.ndarray]) -> None:
        """Index every touched memory that is active (fetching or, if it was embedded by
        another embedder, recomputing its vector) and drop every one that is not."""
        for item in items:
            if item.status != MemoryStatus.ACTIVE:
                self.index.remove(item.id)
                continue
            vector = known.get(item.id)
            if vector is None:
                vector, model = await self.store.run(batches.fetch_embedding, item.id)
                if vector is None or model != self.embedder.name:
                    vector = (await self._embed([item.content]))[0]

                    def write(db: Database, item=item, vector=vector) -> None:
                        with db.atomic():
                            batches.set_embeddings(
                                db, [item.id], vector[None, :], self.embedder.name, [item.content]
                            )

                    await self.store.run(write)
            self.index.upsert(item.id, vector, RankingFacts.of(item))
