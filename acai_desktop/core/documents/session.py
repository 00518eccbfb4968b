"""A profile's documents and nothing else, for the ``docs`` command: the store, the
embedder memories use, and the service with its vectors loaded. Like the
``memories`` command it takes no profile lock: its writes are ordinary transactions,
and an indexing job is claimed atomically, so a running window never runs it twice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile import Profile
from acai_desktop.core.store.database import Store


@asynccontextmanager
async def open_document_service(
    profile: Profile, *, embedder: Embedder | None = None, events: EventBus | None = None
) -> AsyncIterator[DocumentService]:
    if embedder is None:
        from acai_desktop.core.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    store = await Store.open(profile.ensure().database_path)
    try:
        service = DocumentService(store, embedder, events or EventBus())
        await service.load()
        yield service
    finally:
        await store.close()
