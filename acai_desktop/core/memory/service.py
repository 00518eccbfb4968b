"""The memory service: every change to long-term memory goes through here.

Each change runs the same four steps: *validate* (text, kind, actor, ids), *embed*, *write*
(one named transaction of :mod:`~acai_desktop.core.store.memory_changes`, on the database
thread, which returns the :class:`MemoryChange` it made) and *publish* (:meth:`publish`:
the :class:`IndexUpkeep` brings the vector index in line, then the :class:`EventBus`
hears the news):

* :class:`MemoryAdded` — a new row exists (remember, a successor, a conflict row, import);
* :class:`MemoryChanged` — an existing row changed, its status included (restore, a
  superseded predecessor, pin, reinforce, use, its conversation deleted);
* :class:`MemoryRemoved` — the row left the user's memory (forget; it can be restored).

Every event carries the :class:`MemoryItem` as stored; a view decides by its ``status``
whether the item belongs in it. The rules that protect the user's pinned and edited
memories from processors live with the writes (see ``memory_changes``), because the
check and the write must be one transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Literal

from acai_desktop.core.errors import InvalidInputError, ProtectedMemoryError
from acai_desktop.core.events import (
    EventBus,
    MemoriesChangedInBulk,
    MemoryAdded,
    MemoryChanged,
    MemoryRemoved,
)
from acai_desktop.core.memory.episodic import EpisodicIndex
from acai_desktop.core.memory.index_upkeep import REEMBED_BATCH, IndexUpkeep
from acai_desktop.core.memory.new_rows import MemoryDraft, NewRows
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.quiet_learning import is_quiet
from acai_desktop.core.memory.reader import MemoryReader, memory_id_of
from acai_desktop.core.memory.validation import (
    clean_category,
    clean_confidence,
    clean_memory_text,
)
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryKind, Origin
from acai_desktop.core.store import fact_reviews
from acai_desktop.core.store import memory_changes as writes
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memory_changes import MemoryChange

log = logging.getLogger(__name__)


def _actor(actor: Actor | str) -> Actor:
    try:
        return Actor(actor)
    except ValueError:
        raise InvalidInputError(f"Unknown actor {actor!r}.") from None


class MemoryService(MemoryReader):
    """The reads of :class:`MemoryReader`, and every write to long-term memory."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        events: EventBus,
        index: VectorIndex,
        policy: MemoryPolicy | None = None,
    ) -> None:
        super().__init__(store, embedder, index)
        self.events = events
        self.policy = policy or MemoryPolicy()
        #: The vectors of the recallable messages (the episodic tier's semantic side).
        self.episodes = EpisodicIndex(store, embedder)
        self.upkeep = IndexUpkeep(store, embedder, index, self.episodes, events)
        self.rows = NewRows(self.policy, embedder.name)

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
        via: str | None = None,
    ) -> MemoryItem:
        """Store one memory; unless ``explicit``, the policy picks active or temporary.

        ``write_key`` names this write (a job and its step): if a write with that key
        already happened (the job is running again), the memory it made is returned and
        nothing is written. ``via``: who wrote it from outside the app ("Claude Desktop
        via MCP"); its history says so."""
        draft = MemoryDraft(
            content=content,
            kind=kind,
            category=category,
            confidence=confidence,
            sources=tuple(sources),
            conversation_id=conversation_id,
            meta=meta,
        )
        items = await self.remember_many(
            [draft], origin=origin, actor=actor, explicit=explicit, write_key=write_key, via=via
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
        via: str | None = None,
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
                rows.append(self.rows.row(draft, origin=origin, explicit=explicit))
            except InvalidInputError as error:
                if len(drafts) == 1:
                    raise
                raise InvalidInputError(f"Memory {position + 1}: {error}") from None
            sources.append([int(s) for s in draft.sources])
        if not rows:
            return []
        vectors = await self.upkeep.embed([row["content"] for row in rows])
        for row, vector in zip(rows, vectors, strict=True):
            self.rows.with_vector(row, vector)
        change = await self.store.run(
            writes.add_memories, rows, actor=actor, sources=sources, write_key=write_key, via=via
        )
        await self.publish(change)
        return change.added or [change.result]

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
        memory_id = memory_id_of(memory_id)
        actor = _actor(actor)
        content = clean_memory_text(content)
        vector = (await self.upkeep.embed([content]))[0]
        conflict_row = self.rows.conflict_for(content, vector, actor=actor, own_conversation=True)
        change = await self.store.run(
            writes.edit_memory,
            memory_id,
            content,
            vector,
            self.embedder.name,
            actor=actor,
            conflict_row=conflict_row,
        )
        return await self._publish_or_refuse(change)

    async def pin(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Always in context, never touched by processors. A temporary memory becomes active."""
        return await self._set_pinned(memory_id, True, actor)

    async def unpin(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        return await self._set_pinned(memory_id, False, actor)

    async def _set_pinned(self, memory_id: int, pinned: bool, actor: Actor | str) -> MemoryItem:
        change = await self.store.run(
            writes.set_pinned, memory_id_of(memory_id), pinned, actor=_actor(actor)
        )
        return await self._publish_or_refuse(change)

    async def set_local_only(
        self, memory_id: int, local_only: bool, *, actor: Actor | str = Actor.USER
    ) -> MemoryItem:
        """Keep the memory off remote models (never in their prompts), or not."""
        change = await self.store.run(
            writes.set_local_only, memory_id_of(memory_id), local_only, actor=_actor(actor)
        )
        return await self._publish_or_refuse(change)

    async def confirm(self, memory_id: int, *, at: str | None = None) -> MemoryItem:
        """The user says the fact is still true: it is as of ``at`` (None: now; see
        core/memory/fact_ages.py)."""
        change = await self.store.run(fact_reviews.confirm_memory, memory_id_of(memory_id), at=at)
        return await self._publish_or_refuse(change)

    async def retire(self, memory_id: int, *, at: str | None = None) -> MemoryItem:
        """The user says the fact is no longer true: superseded by nothing, history kept."""
        change = await self.store.run(fact_reviews.retire_memory, memory_id_of(memory_id), at=at)
        return await self._publish_or_refuse(change)

    async def forget(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Soft delete: status ``forgotten``, out of retrieval, back with :meth:`restore`."""
        change = await self.store.run(
            writes.forget_memory, memory_id_of(memory_id), actor=_actor(actor)
        )
        return await self._publish_or_refuse(change)

    async def restore(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> MemoryItem:
        """Undo :meth:`forget`: the memory gets back the status it had before."""
        change = await self.store.run(
            writes.restore_memory, memory_id_of(memory_id), actor=_actor(actor)
        )
        return await self._publish_or_refuse(change)

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
        found_by_rule: bool = False,
    ) -> MemoryItem:
        """A refinement or contradiction of ``old_id``: the new memory, which supersedes
        the old one (the old row stays, ``superseded`` and linked; a user's pin moves to
        the newer wording), or, when a processor meets a protected memory, a row with
        status ``conflict`` beside it (the refusal is logged, not raised).
        ``found_by_rule``: a rule, not the caller, picked ``old_id`` (see
        :func:`~acai_desktop.core.memory.replacements.replace_by_rule`); a protected one
        then gets a conflict whoever the actor is.
        ``write_key``: a keyed write happens once (see :meth:`remember`)."""
        old_id = memory_id_of(old_id)
        actor = _actor(actor)
        content = clean_memory_text(new_content)
        confidence = clean_confidence(confidence)
        category = clean_category(category)
        vector = (await self.upkeep.embed([content]))[0]
        relation = dict(
            actor=actor, category=category, confidence=confidence, conversation_id=conversation_id
        )
        change = await self.store.run(
            writes.supersede_memory,
            old_id,
            actor=actor,
            sources=[int(s) for s in sources],
            successor_row=self.rows.successor_for(content, vector, **relation),
            conflict_row=self.rows.conflict_for(content, vector, **relation),
            write_key=write_key,
            found_by_rule=found_by_rule,
        )
        await self.publish(change)
        if change.refused:
            log.info("%s", change.refused)
        return change.result

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
        conflict_id = memory_id_of(conflict_id)
        actor = _actor(actor)
        if keep not in ("new", "old"):
            raise InvalidInputError(f"keep must be 'new' or 'old', not {keep!r}.")
        if actor != Actor.USER:
            # A conflict exists because a processor may not decide; nor may anyone else.
            raise ProtectedMemoryError(
                f"Only the user can resolve a conflict; {actor.value} may not."
            )
        change = await self.store.run(writes.resolve_conflict, conflict_id, keep, actor=actor)
        return await self._publish_or_refuse(change)

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
        change = await self.store.run(
            writes.reinforce_memory,
            memory_id_of(memory_id),
            actor=_actor(actor),
            sources=[int(s) for s in source_message_ids],
            confidence=clean_confidence(confidence) if confidence is not None else None,
            promote=self.policy.should_promote,
            write_key=write_key,
        )
        return await self._publish_or_refuse(change)

    async def mark_used(self, memory_ids: Iterable[int]) -> list[MemoryItem]:
        """Count one use of each memory (the orchestrator, after retrieval).

        Usage is bookkeeping, not a change of what the memory says, so it writes no
        history row (a history event per answer would bury the user's own changes) and
        leaves importance alone; :func:`score_importance` takes use into account
        whenever a memory is re-scored, and retrieval may read use_count directly.
        """
        ids = [memory_id_of(i) for i in dict.fromkeys(memory_ids)]
        if not ids:
            return []
        change = await self.store.run(writes.count_uses, ids)
        await self.publish(change)  # the index learns the last use: recency
        return change.changed

    # -- the index -----------------------------------------------------------------

    async def load_index(self, *, reembed: bool = True) -> int:
        """Fill the index at start-up (see :meth:`IndexUpkeep.load`)."""
        return await self.upkeep.load(reembed=reembed)

    async def reembed_stale(self, batch_size: int = REEMBED_BATCH) -> int:
        """Embed what another embedder wrote (see :meth:`IndexUpkeep.reembed_stale`)."""
        return await self.upkeep.reembed_stale(batch_size)

    async def upkeep_after_start(self, *, reembed: bool = True) -> int:
        """The background work after start-up: re-embed what another embedder wrote
        (with ``reembed``), then merge the full-text segments (see
        :meth:`IndexUpkeep.merge_full_text`). Returns the memories re-embedded."""
        reembedded = await self.upkeep.reembed_stale() if reembed else 0
        await self.upkeep.merge_full_text()
        return reembedded

    # -- publishing ----------------------------------------------------------------

    async def publish(self, change: MemoryChange) -> None:
        """After a write has committed: bring the index in line, then announce each
        memory the write added, changed or removed. Import and conversation deletion,
        which write memories in their own transactions, publish through here too."""
        await self.upkeep.sync(change)
        told = not is_quiet()
        for item in change.added:
            self.events.emit(MemoryAdded(item, told=told))
        for item in change.changed:
            self.events.emit(MemoryChanged(item))
        for item in change.removed:
            self.events.emit(MemoryRemoved(item))

    async def publish_in_bulk(self, change: MemoryChange) -> None:
        """Like :meth:`publish`, with one :class:`MemoriesChangedInBulk` for the whole
        change instead of an event per memory (another process's import: a window taking
        100,000 rows one by one froze for seconds)."""
        await self.upkeep.sync(change)
        self.events.emit(MemoriesChangedInBulk(len(change.touched)))

    async def _publish_or_refuse(self, change: MemoryChange) -> MemoryItem:
        await self.publish(change)
        if change.refused:
            raise ProtectedMemoryError(change.refused, conflict=change.result)
        return change.result
