"""The ``index_document`` job: read a file, chunk it, embed the chunks, store them.

It runs in the persisted job runner, so a document queued before a crash or quit is
indexed at the next start (the job is committed with the document row). The reading
and chunking (pypdf is pure Python: seconds for a long PDF) run on a worker thread and
the embedding in batches off the loop, so the window never stalls. Chunks are cut,
embedded and stored a batch at a time (staged, invisible to search) and published in
one transaction, so memory stays bounded for any file the readers accept and a crash
leaves the old chunks or the new, never half. A job that was running when the app
died twice is not started again by itself (see :meth:`DocumentService.recover_interrupted`).
A file that can't be read is not a failed job: the document shows the reason
(status ``error``) and trying again would not help.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import numpy as np

from acai_desktop.core import events as ev
from acai_desktop.core.documents.chunking import Chunk, iter_chunks
from acai_desktop.core.documents.model import Document, DocumentReadError, DocumentStatus
from acai_desktop.core.documents.readers import ReadDocument, file_sha256, read_document
from acai_desktop.core.documents.vectors import ChunkVectors
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store import documents as sql
from acai_desktop.core.store.database import Store

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Chunks embedded per call: large enough to be efficient, small enough that progress
#: moves and a Stop (cancel) is heard between batches.
EMBED_BATCH = 256
#: How many times a long PDF's reading reports its progress.
PAGE_PROGRESS_STEPS = 10


def _next_batch(chunks: Iterator[Chunk]) -> list[Chunk]:
    """The next chunks to embed (cutting them is CPU work: called on a worker thread)."""
    return list(itertools.islice(chunks, EMBED_BATCH))


def _expected(done: int, cut: int, total: int) -> int:
    """How many chunks the document will have, from the characters cut so far (the
    overlap makes it a slight under-estimate until the end, when it is exact)."""
    return max(done, round(done * total / cut)) if cut else done


def embedding_text(chunk: Chunk) -> str:
    """What a chunk's vector is made from: its heading gives a passage its topic."""
    return f"{chunk.heading}\n{chunk.content}" if chunk.heading else chunk.content


class DocumentIndexer:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        vectors: ChunkVectors,
        events: EventBus,
        read: Callable[..., ReadDocument] = read_document,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.events = events
        self.read = read
        # One thread for all of it, one step after the other: the text, its chunks and
        # their vectors come from one allocator arena, and a document never takes more
        # than one core from the window.
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="document-indexing")

    def _on_worker(self, fn: Callable[..., T], *args) -> asyncio.Future[T]:
        return asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    async def handle(self, job: Job) -> None:
        """The job handler: index the document named in the job's payload."""
        document_id = int(job.payload["document_id"])
        try:
            document = await self._set(document_id, DocumentStatus.INDEXING)
        except NotFoundError:
            return  # removed since it was queued: nothing to do
        try:
            await self.index(document, force=bool(job.payload.get("force")))
        except DocumentReadError as error:
            log.info("document %d not indexed: %s", document_id, error)
            await self._set(document_id, DocumentStatus.ERROR, str(error), missing_ok=True)
        except asyncio.CancelledError:
            # Stopped (quit, or the runner stopping): the job is put back and runs again.
            await asyncio.shield(self._set(document_id, DocumentStatus.QUEUED, missing_ok=True))
            raise
        except Exception as error:
            # Probably passing (the embedding server is down, the disk is busy): shown on
            # the document, and the runner tries the job again.
            await self._set(
                document_id,
                DocumentStatus.ERROR,
                f"Indexing failed ({type(error).__name__}: {error}); it will be tried again.",
                missing_ok=True,
            )
            raise

    async def index(self, document: Document, *, force: bool = False) -> Document | None:
        """Read, chunk, embed and store ``document``; None if it was removed meanwhile.
        An unchanged file (same content hash, same embedder) is not indexed again
        unless ``force``. The chunks are cut, embedded and stored a batch at a time, so
        memory holds the file's text and one batch, whatever the file's size."""
        emit = self.events.emit
        if not force:
            unchanged = await self._unchanged(document)
            if unchanged is not None:
                log.info("document %d is unchanged since it was indexed", document.id)
                emit(ev.DocumentChanged(unchanged))
                return unchanged
        emit(ev.IndexingProgress(document.id, "reading", 0, 1))
        progress = self._page_progress(document.id)
        read = await self._on_worker(self.read, document.path, progress)
        emit(ev.IndexingProgress(document.id, "reading", 1, 1))
        facts = {
            "size": read.size,
            "sha256": read.sha256,
            "mtime": read.mtime,
            "page_count": read.page_count,
        }
        await self.store.run(chunk_sql.drop_staged_chunks, document.id)
        total = sum(len(section.text) for section in read.sections)
        chunks = iter_chunks(read.sections)
        del read  # the sections live on in the chunk iterator, as long as it runs
        batches: list[np.ndarray] = []
        done = cut = 0
        while batch := await self._on_worker(_next_batch, chunks):
            vectors = await self._embed([embedding_text(chunk) for chunk in batch])
            staged = await self.store.run(
                chunk_sql.stage_chunks, document.id, batch, vectors, self.embedder.name
            )
            if not staged:
                return None  # removed while it was being indexed
            batches.append(vectors)
            done += len(batch)
            cut += sum(len(chunk.content) for chunk in batch)
            emit(ev.IndexingProgress(document.id, "embedding", done, _expected(done, cut, total)))
        emit(ev.IndexingProgress(document.id, "embedding", done, done))
        del chunks
        emit(ev.IndexingProgress(document.id, "storing", 0, 1))
        published = await self.store.run(chunk_sql.publish_chunks, document.id, facts)
        if published is None:
            return None  # removed while it was being indexed
        stored, ids = published
        # No await between the write and this: a removal queued meanwhile runs on the
        # database thread after our write and reaches the vectors after this, too.
        self.vectors.replace_document(document.id, ids, batches)
        emit(ev.IndexingProgress(document.id, "storing", 1, 1))
        emit(ev.DocumentChanged(stored))
        return stored

    async def _unchanged(self, document: Document) -> Document | None:
        """The document, ready again, if its file has the content its chunks were made
        from (by this embedder); None if it must be indexed."""
        if document.sha256 is None:
            return None
        try:
            sha256, mtime = await self._on_worker(file_sha256, Path(document.path))
        except OSError:
            return None  # reading it properly says what is wrong
        indexed = await self.store.run(sql.is_indexed_as, document.id, sha256, self.embedder.name)
        return await self.store.run(sql.mark_ready, document.id, mtime) if indexed else None

    def _page_progress(self, document_id: int) -> Callable[[int, int], None]:
        """A callback for the reading thread: every tenth of a long PDF's pages, the
        news is handed to the loop (events are emitted on the loop's thread only)."""
        loop = asyncio.get_running_loop()
        emit = self.events.emit

        def on_page(done: int, total: int) -> None:
            step = max(1, total // PAGE_PROGRESS_STEPS)
            if done % step == 0 and done < total:
                news = ev.IndexingProgress(document_id, "reading", done, total)
                loop.call_soon_threadsafe(emit, news)

        return on_page

    async def _embed(self, texts: list[str]) -> np.ndarray:
        embed_sync = getattr(self.embedder, "embed_sync", None)
        if embed_sync is not None:
            # Always on a worker thread: a batch of passages is milliseconds of CPU.
            return await self._on_worker(embed_sync, texts)
        return await self.embedder.embed(texts)

    async def _set(
        self,
        document_id: int,
        status: DocumentStatus,
        error: str | None = None,
        *,
        missing_ok: bool = False,
    ) -> Document | None:
        try:
            document = await self.store.run(sql.set_status, document_id, status, error)
        except NotFoundError:
            if missing_ok:
                return None
            raise
        self.events.emit(ev.DocumentChanged(document))
        return document
