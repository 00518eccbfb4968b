"""A real memory stack on a temp profile for tests: store file, WordLlama, index, service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.front_door import memory_on, open_memory
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.store_url import open_store

_EMBEDDER = None


def shared_embedder():
    """One WordLlama per test session: loading it costs half a second, using it nothing."""
    global _EMBEDDER
    if _EMBEDDER is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        _EMBEDDER = WordLlamaEmbedder()
    return _EMBEDDER


@dataclass
class EventLog:
    """Every memory event and embedding progress, in order."""

    seen: list[Any] = field(default_factory=list)

    def attach(self, bus: EventBus) -> EventLog:
        for event_type in (
            ev.MemoryAdded,
            ev.MemoryChanged,
            ev.MemoryRemoved,
            ev.EmbeddingProgress,
        ):
            bus.subscribe(event_type, self.seen.append)
        return self

    def named(self, event_type: type) -> list[Any]:
        """The events of ``event_type``, in order."""
        return [event for event in self.seen if type(event) is event_type]

    def memories(self, event_type: type) -> list[MemoryItem]:
        """The memory of each ``event_type`` event (MemoryAdded, -Changed, -Removed)."""
        return [event.memory for event in self.named(event_type)]

    def clear(self) -> None:
        self.seen.clear()


@asynccontextmanager
async def memory_services(
    data_dir: Path,
    *,
    policy: MemoryPolicy | None = None,
    store_location: Path | str | None = None,
) -> AsyncIterator[tuple[Store, MemoryService, EventLog]]:
    """The memory of the profile in ``data_dir``, or (``store_location``, the store
    suite's fixture) of the store there: a SQLite file or a PostgreSQL database."""
    bus = EventBus()
    log = EventLog().attach(bus)
    if store_location is not None:
        store = await open_store(store_location)
        try:
            yield store, await memory_on(store, shared_embedder(), bus, policy), log
        finally:
            await store.close()
        return
    async with open_memory(
        Profile.at(data_dir), embedder=shared_embedder(), policy=policy, events=bus
    ) as service:
        store = service.store
        yield store, service, log


async def count_rows(store: Store, table: str) -> int:
    return await store.run(lambda db: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


async def retrieve(service: MemoryService, query: str, k: int = 10) -> list[int]:
    """Ids of the memories the assistant's own retrieval returns for ``query``, best
    first (recalled messages, the other tier, left out)."""
    from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMemory

    retriever = HybridRetriever(
        service.store, service.embedder, service.index, messages=service.episodes.index
    )
    hits = await retriever.search(query, k)
    return [hit.memory.id for hit in hits if isinstance(hit, RetrievedMemory)]
