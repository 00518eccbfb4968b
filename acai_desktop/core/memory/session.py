"""Open a profile's memory: the store, the default embedder, the index and the service.

For commands and tools that need the memory of a profile and nothing else (the
``memories`` command, evaluation); the GUI's composition root builds the same parts
alongside the rest of the app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.profile import Profile
from acai_desktop.core.store.database import Store


@asynccontextmanager
async def open_memory_services(
    profile: Profile,
    *,
    embedder: Embedder | None = None,
    policy: MemoryPolicy | None = None,
    events: EventBus | None = None,
) -> AsyncIterator[tuple[Store, MemoryService]]:
    """``(store, service)`` with the index loaded (and stale embeddings redone); the
    store is closed on exit, whatever happens inside."""
    if embedder is None:
        from acai_desktop.core.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    store = await Store.open(profile.ensure().database_path)
    try:
        service = MemoryService(
            store, embedder, events or EventBus(), VectorIndex(embedder.dimensions), policy
        )
        await service.load_index()
        yield store, service
    finally:
        await store.close()
