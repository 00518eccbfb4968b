"""A profile's documents and nothing else, for the ``docs`` command: the store, the
embedder memories use, and the service with its vectors loaded.

Like the ``memories`` command it works beside a running window: its writes are
ordinary transactions, and an indexing job is claimed atomically, so the window never
runs it twice. When no other process of the app holds the profile, it takes the
profile's lock for its run: the indexing jobs left ``running`` then died with the app
(a killed ``docs add``), and are recovered here (see
:meth:`DocumentService.recover_interrupted`); holding the lock keeps a window that
starts meanwhile from taking this command's running job for an interrupted one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_opening import open_profile_store


@asynccontextmanager
async def open_document_service(
    profile: Profile, *, embedder: Embedder | None = None, events: EventBus | None = None
) -> AsyncIterator[DocumentService]:
    if embedder is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    lock = ProfileLock(profile.ensure().data_dir).try_acquire()
    try:
        store = await open_profile_store(profile)
        try:
            service = DocumentService(store, embedder, events or EventBus())
            await service.load()
            if lock is not None:
                await service.recover_interrupted()
            yield service
        finally:
            await store.close()
    finally:
        if lock is not None:
            lock.release()
