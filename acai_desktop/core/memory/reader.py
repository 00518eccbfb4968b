"""Reading long-term memory: records, history, sources, the panel's pages, and the
memories closest in meaning to a text. :class:`MemoryService` adds the writes."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.health import MemoryHealth, read_memory_health
from acai_desktop.core.memory.listing import PanelPages
from acai_desktop.core.memory.panel_search import rank_for_panel
from acai_desktop.core.memory.similar import similar_memories
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import MemoryEvent, MemoryItem, MemoryKind
from acai_desktop.core.store import memories as reads
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memories import MemoryFilter, MemoryRepository


def memory_id_of(memory_id: object) -> int:
    """A memory id as given by a caller (the command line passes text) as an int."""
    if isinstance(memory_id, bool) or not isinstance(memory_id, int):
        try:
            return int(str(memory_id).strip())
        except ValueError:
            raise InvalidInputError(f"{memory_id!r} is not a memory id (a number).") from None
    return memory_id


class MemoryReader(PanelPages):
    def __init__(self, store: Store, embedder: Embedder, index: VectorIndex) -> None:
        self.store = store
        self.embedder = embedder
        self.index = index
        self.repository = MemoryRepository(store)

    async def get(self, memory_id: int) -> MemoryItem:
        return await self.repository.get(memory_id_of(memory_id))

    async def list(self, where: MemoryFilter | None = None) -> list[MemoryItem]:
        return await self.repository.list(where)

    async def count(self, where: MemoryFilter | None = None) -> int:
        """How many memories ``where`` matches (its limit and offset aside)."""
        return await self.repository.count(where)

    async def history(self, memory_id: int) -> list[MemoryEvent]:
        return await self.repository.history(memory_id_of(memory_id))

    async def sources(self, memory_id: int) -> list[int]:
        memory_id = memory_id_of(memory_id)

        def read(db) -> list[int]:
            reads.fetch_memory(db, memory_id)  # NotFoundError for an unknown id
            return reads.sources_of(db, [memory_id])[memory_id]

        return await self.store.run(read)

    async def health(self) -> MemoryHealth:
        """Counts for the memory health view (see :mod:`acai_desktop.core.memory.health`)."""
        return await read_memory_health(self.store)

    async def stored_from_messages(self, message_ids: Iterable[int]) -> list[MemoryItem]:
        """Memories whose sources include any of these messages, oldest first."""
        ids = [int(m) for m in message_ids]
        return await self.store.run(reads.memories_sourced_from, ids)

    async def near_in_meaning(self, text: str) -> tuple[int, ...]:
        """The memories a panel search finds by topic and meaning, most relevant first
        (see :mod:`~acai_desktop.core.memory.panel_search`)."""
        found = await rank_for_panel(self.store, self.index, self.embedder, text)
        return tuple(memory_id for memory_id, _ in found)

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
        if not len(self.index) and not include_temporary:
            return []
        vector = np.asarray(await self.embedder.embed([content]), dtype=np.float32)[0]
        return await similar_memories(
            self.store,
            self.index,
            self.embedder,
            vector,
            k=k,
            kinds={str(kind) for kind in kinds} if kinds else None,
            include_temporary=include_temporary,
        )
