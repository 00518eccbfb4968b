"""DocumentService: what the window and the ``docs`` command call.

Adding queues: a document row and its ``index_document`` job are committed together,
and the job runner indexes it in the background (a command with no runner calls
:meth:`DocumentService.index_now`). Every change is announced on the event bus
(DocumentAdded / DocumentChanged / DocumentRemoved, IndexingProgress while indexing,
FolderProgress while a folder is walked), so a list model follows without polling.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.documents.images import IMAGE_KIND
from acai_desktop.core.documents.indexing import DocumentIndexer
from acai_desktop.core.documents.model import (
    Document,
    DocumentReadError,
    DocumentScope,
    DocumentStatus,
    Passage,
    RetrievedPassage,
)
from acai_desktop.core.documents.readers import (
    MAX_FILE_BYTES,
    MAX_FILE_LABEL,
    file_sha256,
    name_not_utf8,
    not_regular,
    printable_path,
    require_kind,
    walk_folder,
)
from acai_desktop.core.documents.search import DocumentSearch
from acai_desktop.core.documents.vectors import ChunkVectors
from acai_desktop.core.events import EventBus
from acai_desktop.core.files.regular import NotRegularFileError, open_regular
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store import documents as sql
from acai_desktop.core.store import jobs as job_sql
from acai_desktop.core.store import local_only as local_only_rows
from acai_desktop.core.store import projects
from acai_desktop.core.store.database import Store

log = logging.getLogger(__name__)


@dataclass
class AddReport:
    """What an add did: documents queued (new or queued again), files refused and why,
    and the indexing jobs (for :meth:`DocumentService.index_now` or waiting)."""

    queued: list[Document] = field(default_factory=list)
    #: Added before, indexed, and the file has not changed since: nothing to do.
    unchanged: list[Document] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    job_ids: list[int] = field(default_factory=list)
    stopped: bool = False


class DocumentService:
    def __init__(self, store: Store, embedder: Embedder, events: EventBus) -> None:
        self.store = store
        self.embedder = embedder
        self.events = events
        self.vectors = ChunkVectors(embedder.dimensions)
        self.indexer = DocumentIndexer(store, embedder, self.vectors, events)
        self.searcher = DocumentSearch(store, embedder, self.vectors)

    async def load(self) -> None:
        """Load the chunks' vectors; documents embedded by another embedder (the user
        switched) are queued for indexing again."""
        ids, documents, vectors = await self.store.run(chunk_sql.chunk_vectors, self.embedder.name)
        # The sign codes and sums of 100,000 chunks take most of a second: off the loop
        # (nothing else holds this service while it loads).
        await asyncio.to_thread(
            self.vectors.load, ids, documents, vectors.reshape(len(ids), self.embedder.dimensions)
        )
        stale = await self.store.run(_stale_documents, self.embedder.name)
        if stale:
            log.info("re-indexing %d document(s) embedded by another embedder", len(stale))
            await self._queue_existing(stale)

    async def recover_interrupted(self) -> list[Document]:
        """At a start that owns the profile (no other process of the app runs): indexing
        jobs left running died with the app; they are queued again, except one found
        so a second time, which is failed with the reason (it may be what kills the
        app) until the user retries it. Returns the documents given up."""
        recovered = await self.store.run(sql.recover_indexing_jobs)
        for document in recovered.requeued:
            log.info("indexing of document %d was interrupted; it runs again", document.id)
        for document in recovered.given_up:
            log.warning("document %d: %s", document.id, sql.JOB_STOPPED_THE_APP_TWICE)
        for document in recovered.requeued + recovered.given_up:
            self.events.emit(ev.DocumentChanged(document))
        for job in recovered.failed_jobs:  # the status bar's failed jobs, with Retry
            self.events.emit(ev.JobStatusChanged(job))
        return recovered.given_up

    # -- the job -------------------------------------------------------------------

    async def handle(self, job: Job) -> None:
        """The ``index_document`` job handler (registered with the job runner)."""
        await self.indexer.handle(job)

    async def index_now(self, job_ids: Iterable[int]) -> list[Document]:
        """Run these indexing jobs here and now (a command without a job runner).
        A job another process is running already is left to it."""
        finished = []
        for job_id in job_ids:
            job = await self.store.run(job_sql.claim_job, job_id)
            if job is None:
                continue
            try:
                await self.handle(job)
            except Exception as error:
                await self.store.run(
                    job_sql.fail_job, job.id, f"{type(error).__name__}: {error}", None
                )
                raise
            await self.store.run(job_sql.finish_job, job.id)
            finished.append(await self.get(int(job.payload["document_id"])))
        return finished

    # -- adding ----------------------------------------------------------------------

    async def add(self, paths: Iterable[str | Path]) -> AddReport:
        """Queue files for indexing. A file that is clearly unusable (unsupported type,
        missing, unreadable, over the size limit) is refused at once with the reason,
        and the others are still queued. A file added before is queued again if it
        changed since it was indexed (see :meth:`reindex`), else left as it is."""
        report = AddReport()
        for path in paths:
            await self._add_one(Path(path), report)
        return report

    async def add_folder(
        self, folder: str | Path, *, stop: asyncio.Event | None = None
    ) -> AddReport:
        """Queue every supported file under ``folder``, recursively, announcing
        FolderProgress; setting ``stop`` ends the walk (what was queued stays queued;
        :meth:`stop_indexing` takes those back)."""
        folder = Path(folder).expanduser()
        if not folder.is_dir():
            raise DocumentReadError(f"{folder} is not a folder.")
        files, skipped = await asyncio.to_thread(walk_folder, folder)
        report = AddReport()
        name = str(folder)
        self.events.emit(ev.FolderProgress(name, 0, len(files)))
        for done, path in enumerate(files, 1):
            if stop is not None and stop.is_set():
                report.stopped = True
                break
            await self._add_one(path, report)
            self.events.emit(ev.FolderProgress(name, done, len(files)))
        handled = len(report.queued) + len(report.unchanged) + len(report.refused)
        self.events.emit(ev.FolderProgress(name, handled, len(files), True, report.stopped))
        report.refused.extend(skipped)  # links out of the folder, pipes, loops: with why
        return report

    async def _add_one(self, path: Path, report: AddReport) -> None:
        path = path.expanduser().absolute()
        shown = printable_path(path)
        if shown != str(path):
            # Bytes that are not UTF-8 in its name: it can't be stored or shown as text.
            # Refused by itself, so the rest of its folder is still added.
            report.refused.append((shown, name_not_utf8(shown)))
            return
        try:
            kind = require_kind(path)
            size = await asyncio.to_thread(_checked_size, path)
        except DocumentReadError as error:
            report.refused.append((str(path), str(error)))
            return
        known = await self.store.run(sql.document_at, str(path))
        if known is not None and known.status == DocumentStatus.READY:
            try:
                if not await asyncio.to_thread(_file_changed, known):
                    report.unchanged.append(known)
                    return
            except DocumentReadError as error:
                report.refused.append((str(path), str(error)))
                return
        document, job_id = await self.store.run(
            sql.queue_document, str(path), path.name, kind, size
        )
        report.queued.append(document)
        report.job_ids.append(job_id)
        news = ev.DocumentAdded if known is None else ev.DocumentChanged
        self.events.emit(news(document))
        await self.announce_job(job_id)

    async def announce_job(self, job_id: int) -> None:
        # A pending job wakes the runner (it listens for JobStatusChanged).
        self.events.emit(ev.JobStatusChanged(await self.store.run(job_sql.fetch_job, job_id)))

    async def _queue_existing(self, documents: list[Document], *, force: bool = False) -> AddReport:
        report = AddReport()
        for document in documents:
            queued, job_id = await self.store.run(
                sql.queue_document,
                document.path,
                document.name,
                document.kind,
                document.size,
                force=force,
            )
            report.queued.append(queued)
            report.job_ids.append(job_id)
            self.events.emit(ev.DocumentChanged(queued))
            await self.announce_job(job_id)
        return report

    # -- looking and changing --------------------------------------------------------

    async def list(self) -> list[Document]:
        return await self.store.run(sql.list_documents)

    async def get(self, document_id: int) -> Document:
        return await self.store.run(sql.fetch_document, document_id)

    async def remove(self, document_id: int) -> Document:
        """Remove a document and its chunks (answers that cited it keep the citation)."""
        document = await self.store.run(sql.delete_document, document_id)
        self.vectors.remove_document(document_id)
        self.events.emit(ev.DocumentRemoved(document_id))
        return document

    async def reindex(self, document_id: int | None = None, *, force: bool = False) -> AddReport:
        """Queue a document (None: every document) for indexing again when its file
        changed since it was indexed (size, date, then content hash compared), when
        its indexing failed, or always with ``force``. A file that is gone or now
        unreadable is marked so, with the reason, and its chunks are kept."""
        documents = [await self.get(document_id)] if document_id is not None else await self.list()
        report = AddReport()
        changed = []
        for document in documents:
            if document.status in (DocumentStatus.QUEUED, DocumentStatus.INDEXING):
                continue  # on its way already
            if document.kind == IMAGE_KIND:
                continue  # nothing to index: a model that sees reads it whole
            try:
                if force or await asyncio.to_thread(_file_changed, document):
                    changed.append(document)
            except DocumentReadError as error:
                report.refused.append((document.path, str(error)))
                await self._mark_error(document.id, str(error))
        queued = await self._queue_existing(changed, force=force)
        report.queued, report.job_ids = queued.queued, queued.job_ids
        return report

    async def stop_indexing(self, document_ids: Iterable[int] | None = None) -> list[Document]:
        """Take back documents still waiting to be indexed (a folder's Stop; None: every
        queued document): their jobs are dropped and they show "stopped" (status error,
        so the reason shows); re-index brings them back. One being indexed finishes."""
        ids = None if document_ids is None else list(document_ids)
        stopped = await self.store.run(_stop_queued, ids)
        for document in stopped:
            self.events.emit(ev.DocumentChanged(document))
        return stopped

    async def _mark_error(self, document_id: int, reason: str) -> None:
        document = await self.store.run(sql.set_status, document_id, DocumentStatus.ERROR, reason)
        self.events.emit(ev.DocumentChanged(document))

    # -- searching -------------------------------------------------------------------

    async def search(
        self, query: str, k: int = 5, scope: DocumentScope | None = None
    ) -> list[RetrievedPassage]:
        return await self.searcher.search(query, k, scope)

    async def evidence_for(
        self, conversation_id: int, query: str, k: int = 5
    ) -> list[RetrievedPassage]:
        """The passages for a turn of ``conversation_id``: within its document scope,
        with its own attachments and without other chats' (see
        :func:`~acai_desktop.core.store.documents.evidence_documents`), nor another
        project's documents."""
        if not len(self.vectors) and not await self.store.run(_has_chunks):
            return []  # no document at all: no query
        allowed, excluded = await self.store.run(
            projects.evidence_documents_for_chat, conversation_id
        )
        # Chosen for this chat, so always past the relevance floor: the documents its
        # scope lists and its attachments (both in ``allowed`` when it is a list).
        chosen = allowed
        if chosen is None:
            chosen = [d.id for d in await self.store.run(sql.attachments_of, conversation_id)]
        return await self.searcher.search_within(query, k, allowed, excluded, chosen)

    async def passages(self, document_id: int) -> list[Passage]:
        """Every chunk of a document in order (to show a passage in its place)."""
        return await self.store.run(chunk_sql.chunks_of, document_id)

    async def passage(self, chunk_id: int) -> Passage | None:
        return (await self.store.run(chunk_sql.passages_by_id, [chunk_id])).get(chunk_id)

    # -- scope -----------------------------------------------------------------------

    async def scope(self, conversation_id: int) -> DocumentScope:
        return await self.store.run(sql.get_scope, conversation_id)

    async def set_scope(self, conversation_id: int, scope: DocumentScope) -> DocumentScope:
        return await self.store.run(sql.set_scope, conversation_id, scope)

    async def set_project(self, document_id: int, project_id: int | None) -> Document:
        """Keep a document to a project's chats (None: every chat may draw on it)."""
        await self.store.run(projects.set_document_project, document_id, project_id)
        document = await self.get(document_id)
        self.events.emit(ev.DocumentChanged(document))
        return document

    async def set_local_only(self, document_id: int, local_only: bool) -> Document:
        """Keep a document's passages off remote models (core/turns/privacy.py), or not."""
        await self.store.run(local_only_rows.set_document_local_only, document_id, local_only)
        document = await self.get(document_id)
        self.events.emit(ev.DocumentChanged(document))
        return document


def _checked_size(path: Path) -> int:
    """The file's size, refusing a missing, unreadable, too large or not regular file
    (a pipe, a looping link) before it is queued (the job reads it again and checks
    everything)."""
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise DocumentReadError(
                f"{path.name} is {size / 1024 / 1024:.0f} MB; the limit is {MAX_FILE_LABEL} "
                "per file. Split it into smaller files."
            )
    except NotRegularFileError as error:
        raise DocumentReadError(not_regular(path, error.strerror)) from None
    except FileNotFoundError:
        raise DocumentReadError(f"{path} does not exist.") from None
    except PermissionError:
        raise DocumentReadError(
            f"{path.name} can't be read: permission denied. Check the file's permissions."
        ) from None
    except OSError as error:
        raise DocumentReadError(f"{path.name} can't be read ({error.strerror or error}).") from None
    return size


def _file_changed(document: Document) -> bool:
    """Whether the file differs from what was indexed: size or date first (cheap),
    then the content hash (a touched file with the same bytes is not re-indexed)."""
    if document.status == DocumentStatus.ERROR or document.sha256 is None:
        return True
    path = Path(document.path)
    size = _checked_size(path)
    if size == document.size and path.stat().st_mtime == document.mtime:
        return False
    return file_sha256(path)[0] != document.sha256


def _stale_documents(db, embedding_model: str) -> list[Document]:
    ids = [
        row[0]
        for row in db.execute(
            "SELECT DISTINCT document_id FROM chunks WHERE embedding_model IS DISTINCT FROM ? "
            "AND ordinal >= 0",
            [embedding_model],
        )
    ]
    return [sql.fetch_document(db, i) for i in ids]


def _has_chunks(db) -> bool:
    return db.execute("SELECT 1 FROM chunks WHERE ordinal >= 0 LIMIT 1").fetchone() is not None


def _stop_queued(db, document_ids: list[int] | None) -> list[Document]:
    stopped = []
    with db.atomic():
        if document_ids is None:
            document_ids = [
                row[0] for row in db.execute("SELECT id FROM documents WHERE status = 'queued'")
            ]
        for document_id in document_ids:
            removed = db.execute(
                "DELETE FROM jobs WHERE kind = ? AND status = 'pending' "
                f"AND CAST({db.dialect.json_text('payload', 'document_id')} AS INTEGER) = ?",
                [sql.INDEX_JOB, document_id],
            ).rowcount
            if removed:
                db.execute(
                    "UPDATE documents SET status = 'error', error = ? WHERE id = ? "
                    "AND status = 'queued'",
                    ["Stopped before it was indexed; re-index it to index it.", document_id],
                )
                stopped.append(sql.fetch_document(db, document_id))
    return stopped
