"""A profile's memory: the service over a store, with its index loaded.

:func:`memory_service_on` is the one place a :class:`MemoryService` is put together;
:func:`acai_desktop.core.assistant.open_assistant` builds the whole assistant with it,
and :func:`open_memory_services` opens a profile's memory and nothing else, for the
commands and tools that need only that (the ``memories`` command, evaluation). It takes
no profile lock: its writes are ordinary transactions, safe beside a running app.
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
from acai_desktop.core.profile_store import open_profile_store
from acai_desktop.core.store.interface import MemoryStore as Store


async def memory_service_on(
    store: Store,
    embedder: Embedder,
    events: EventBus,
    policy: MemoryPolicy | None = None,
    *,
    reembed: bool = True,
) -> MemoryService:
    """The memory service over ``store`` with its index loaded; ``reembed`` False leaves
    vectors from another embedder to :meth:`MemoryService.reembed_stale` (the assistant
    runs it in the background)."""
    service = MemoryService(store, embedder, events, VectorIndex(embedder.dimensions), policy)
    await service.load_index(reembed=reembed)
    return service


@asynccontextmanager
async def open_memory_services(
    profile: Profile,
    *,
    embedder: Embedder | None = None,
    policy: MemoryPolicy | None = None,
    events: EventBus | None = None,
    reembed: bool = True,
) -> AsyncIterator[tuple[Store, MemoryService]]:
    """``(store, service)`` with the index loaded (and, with ``reembed``, stale
    embeddings redone); the store is closed on exit, whatever happens inside."""
    if embedder is None:
        from acai_desktop.core.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    store = await open_profile_store(profile.ensure())
    try:
        yield (
            store,
            await memory_service_on(store, embedder, events or EventBus(), policy, reembed=reembed),
        )
    finally:
        await store.close()
