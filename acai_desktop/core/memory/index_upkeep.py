"""Keeping the vector index equal to the active memories, and their vectors current.

The :class:`VectorIndex` holds one vector per ``active`` memory (retrieval's semantic
side). :class:`IndexUpkeep` fills it at start-up (:meth:`load`), re-embeds what another
embedder wrote (:meth:`reembed_stale`, a background task), and brings it in line after
every write (:meth:`sync`), which the :class:`MemoryService` calls before it announces
the change. It also merges the full-text indexes' segments (:meth:`merge_full_text`),
which many small writes leave behind and every BM25 query reads.
"""

from __future__ import annotations

import numpy as np

from acai_desktop.core.events import EmbeddingProgress, EventBus
from acai_desktop.core.memory.episodic import EpisodicIndex
from acai_desktop.core.memory.vector_index import RankingFacts, VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus
from acai_desktop.core.store import memories, search
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.full_text_upkeep import FULL_TEXT_TABLES, merge_step
from acai_desktop.core.store.memory_changes import MemoryChange
from acai_desktop.core.store.memory_writes import store_embeddings

REEMBED_BATCH = 512


class IndexUpkeep:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        index: VectorIndex,
        episodes: EpisodicIndex,
        events: EventBus,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.index = index
        self.episodes = episodes
        self.events = events

    async def embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(await self.embedder.embed(texts), dtype=np.float32)

    async def load(self, *, reembed: bool = True) -> int:
        """Fill the index from the stored embeddings of active memories; then, with
        ``reembed``, embed every memory whose vector came from another embedder (see
        :meth:`reembed_stale`). Returns the number of memories in the index."""

        def fill(db: Database) -> None:
            # On the database thread, in one go: copying 100k vectors into the index
            # would stall the window's loop for a tenth of a second or more, and a write
            # queued after this read reaches the index only after the load (no lost
            # update). The index has its own lock for readers on other threads.
            self.index.load(
                *memories.embeddings_with_status(
                    db, "active", self.embedder.name, self.embedder.dimensions
                )
            )
            self.index.set_facts_many(*search.active_ranking_facts(db))

        await self.store.run(fill)
        await self.episodes.load()
        if reembed:
            await self.reembed_stale()
        return len(self.index)

    async def reembed_stale(self, batch_size: int = REEMBED_BATCH) -> int:
        """Embed, in batches and active memories first, every memory whose embedding is
        missing or from another embedder, emitting :class:`EmbeddingProgress` after each
        batch; then embed the recallable messages that have no vector from this
        embedder. Safe as a background task while the user works: a memory edited
        meanwhile keeps its newer vector."""
        total = await self._reembed_memories(batch_size)
        await self.episodes.embed_missing(batch_size=batch_size)
        return total

    async def merge_full_text(self) -> int:
        """Merge each full-text index's segments into one, in bounded steps with other
        database work between them (see :mod:`full_text_upkeep`); a background task
        after start-up. Returns the number of steps that merged something."""
        steps = 0
        for table in FULL_TEXT_TABLES:
            while await self.store.run(merge_step, table):
                steps += 1
        return steps

    async def _reembed_memories(self, batch_size: int) -> int:
        stale = await self.store.run(
            memories.stale_embeddings, self.embedder.name, self.embedder.dimensions
        )
        total = len(stale)
        if not total:
            return 0
        self.events.emit(EmbeddingProgress(done=0, total=total))
        done = 0
        for start in range(0, total, batch_size):
            batch = stale[start : start + batch_size]
            ids = [row[0] for row in batch]
            contents = [row[1] for row in batch]
            vectors = await self.embed(contents)
            active = await self.store.run(
                store_embeddings, ids, vectors, self.embedder.name, contents
            )
            for memory_id, content, vector in zip(ids, contents, vectors, strict=True):
                if memory_id in active and content:
                    self.index.upsert(memory_id, vector, RankingFacts.of(active[memory_id]))
            done += len(batch)
            self.events.emit(EmbeddingProgress(done=done, total=total))
        return total

    async def sync(self, change: MemoryChange) -> None:
        """Index every memory ``change`` touched that is active (with the vector the
        write stored, else the stored one, else a new one if another embedder made it)
        and drop every one that is not."""
        if change.ranking_only:
            for item in change.touched:
                self.index.set_facts(item.id, RankingFacts.of(item))  # no-op if not indexed
            return
        for item in change.touched:
            if item.status != MemoryStatus.ACTIVE:
                self.index.remove(item.id)
                continue
            vector = change.vectors.get(item.id)
            if vector is None:
                vector = await self._stored_or_new_vector(item)
            self.index.upsert(item.id, vector, RankingFacts.of(item))

    async def _stored_or_new_vector(self, item: MemoryItem) -> np.ndarray:
        vector, model = await self.store.run(memories.fetch_embedding, item.id)
        if vector is not None and model == self.embedder.name:
            return vector
        vector = (await self.embed([item.content]))[0]
        await self.store.run(
            store_embeddings, [item.id], vector[None, :], self.embedder.name, [item.content]
        )
        return vector
