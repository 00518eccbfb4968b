"""Files attached in a chat's composer (the paperclip, a drop, a long paste): documents
that belong to one chat.

An attachment is a document like any other (the same readers, chunks, indexing job
and search), with two differences (docs/architecture.md, "Attachments"):

* It is **the chat's**: evidence for that chat's turns only, whatever the chat's
  document scope, and never for another chat; it is not in the Documents tab (the
  library), it shows in its chat's composer; deleting the chat deletes it.
* It is **a copy**: the file is copied into the profile's ``attachments`` folder when it
  is attached (a pasted text is written there), so what the chat quotes is what was
  attached, the same file may be attached to two chats, and removing it removes the
  copy only, never the user's file.

An image (a file, or a picture pasted from the clipboard) is an attachment too, of kind
``image`` (``images.py``): checked and copied the same way, but with nothing to index,
so it is ready at once and has no passages; the message it was sent with carries it to
the model (``core/turns/turn_images.py``).

The readers' refusals come at once, when the file is attached (:func:`check_readable`),
so a file that can't be used never reaches the send. A new chat's attachments are
*held* (no conversation yet) and bound to the chat its first message starts; held
ones left by an earlier run (never sent) are dropped at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.documents.images import (
    IMAGE_KIND,
    PASTED_IMAGE_FILE,
    image_facts,
    pasted_image_name,
    read_image,
)
from acai_desktop.core.documents.model import (
    AttachmentFailed,
    Document,
    DocumentReadError,
    DocumentStatus,
)
from acai_desktop.core.documents.readers import (
    check_readable,
    fingerprint,
    name_not_utf8,
    printable_path,
)
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.routing.turn_needs import is_image
from acai_desktop.core.store import documents as sql

log = logging.getLogger(__name__)

#: The file a pasted text is kept in (its document's name says what it is).
PASTED_FILE = "pasted.txt"
#: How much of a paste's first line names it.
PASTED_NAME_CHARS = 40


def pasted_name(text: str) -> str:
    """What a pasted text is called in its chat and in citations: its first words and
    its size, so the user recognises it ("Pasted text, 800 lines: “Line 0: the…”")."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > PASTED_NAME_CHARS:
        cut = first.rfind(" ", 0, PASTED_NAME_CHARS)
        first = first[: cut if cut > PASTED_NAME_CHARS // 2 else PASTED_NAME_CHARS] + "…"
    lines = text.count("\n") + 1
    size = f"{lines:,} lines" if lines > 1 else f"{len(text):,} characters"
    return f"Pasted text, {size}: “{first}”"


class ChatAttachments:
    def __init__(self, documents: DocumentService, folder: Path) -> None:
        self.documents = documents
        self.store = documents.store
        self.events = documents.events
        #: The profile's ``attachments`` folder: one sub-folder per attached file.
        self.folder = folder

    # -- attaching ---------------------------------------------------------------------

    async def attach_file(self, path: str | Path, conversation_id: int | None) -> Document:
        """Attach the file at ``path`` to a chat (None: the new chat, held until its
        first message is sent). Raises DocumentReadError at once, saying why, for a file
        the readers refuse; nothing is kept then."""
        path = Path(path).expanduser().absolute()
        shown = printable_path(path)
        if shown != str(path):
            raise DocumentReadError(name_not_utf8(shown))
        if is_image(path):
            data, _facts = await asyncio.to_thread(read_image, path)
            return await self._attach_image(data, path.name, path.name, conversation_id)
        kind = await asyncio.to_thread(_attachable, path)
        copy, size = await asyncio.to_thread(self._copy, path)
        return await self._queue(copy, size, path.name, kind, conversation_id)

    async def attach_text(self, text: str, conversation_id: int | None) -> Document:
        """A pasted text too long for a message becomes a text attachment of the chat."""
        if not text.strip():
            raise DocumentReadError("The pasted text is empty: there is nothing to attach.")
        copy, size = await asyncio.to_thread(self._write, text)
        return await self._queue(copy, size, pasted_name(text), "text", conversation_id)

    async def attach_image(self, data: bytes, conversation_id: int | None) -> Document:
        """A pasted image (its bytes, as the clipboard gave them in PNG) becomes an image
        attachment of the chat; refused at once, saying why, like a file."""
        facts = image_facts(data, "The pasted image")
        name = pasted_image_name(facts)
        return await self._attach_image(data, PASTED_IMAGE_FILE, name, conversation_id)

    async def _attach_image(
        self, data: bytes, file_name: str, name: str, conversation_id: int | None
    ) -> Document:
        """An image is ready at once: nothing to index (a model that sees reads it whole).
        The bytes checked are the bytes copied, so what is sent is what was checked."""
        copy, size = await asyncio.to_thread(
            self._store_file, file_name, lambda copy: copy.write_bytes(data)
        )
        try:
            document = await self.store.run(
                sql.add_ready_attachment,
                str(copy),
                name,
                IMAGE_KIND,
                size,
                fingerprint(data),
                conversation_id,
            )
        except BaseException:
            await asyncio.to_thread(self._delete_copy, str(copy))
            raise
        self.events.emit(ev.DocumentAdded(document))
        return document

    async def _queue(
        self, copy: Path, size: int, name: str, kind: str, conversation_id: int | None
    ) -> Document:
        try:
            document, job_id = await self.store.run(
                sql.queue_document,
                str(copy),
                name,
                kind,
                size,
                attachment=True,
                conversation_id=conversation_id,
            )
        except BaseException:
            await asyncio.to_thread(self._delete_copy, str(copy))
            raise
        self.events.emit(ev.DocumentAdded(document))
        await self.documents.announce_job(job_id)
        return document

    def _copy(self, path: Path) -> tuple[Path, int]:
        """On a worker thread: the file copied into its own folder, and its size."""
        return self._store_file(path.name, lambda copy: shutil.copyfile(path, copy))

    def _write(self, text: str) -> tuple[Path, int]:
        """On a worker thread: a pasted text written into its own folder, and its size."""
        return self._store_file(PASTED_FILE, lambda copy: copy.write_text(text, "utf-8"))

    def _store_file(self, file_name: str, write: Callable[[Path], object]) -> tuple[Path, int]:
        home = self.folder / uuid.uuid4().hex
        copy = home / file_name
        try:
            home.mkdir(parents=True)
            write(copy)
            return copy, copy.stat().st_size
        except OSError as error:  # a full disk, a read-only profile: said, nothing kept
            shutil.rmtree(home, ignore_errors=True)
            raise DocumentReadError(
                f"{file_name} could not be attached: {error.strerror or error}."
            ) from None

    # -- a chat's attachments -------------------------------------------------------------

    async def of_conversation(self, conversation_id: int | None) -> list[Document]:
        """A chat's attachments (None: those held by the new chat), in order."""
        return await self.store.run(sql.attachments_of, conversation_id)

    async def bind(self, document_ids: Sequence[int], conversation_id: int) -> None:
        """Held attachments become the chat's (its first message started it)."""
        if document_ids:
            await self.store.run(sql.bind_attachments, list(document_ids), conversation_id)

    async def to_wait_for(
        self, conversation_id: int | None, document_ids: Sequence[int]
    ) -> list[int]:
        """What a message to ``conversation_id`` waits for: the attachments sent with it,
        and those of the chat not indexed yet (attached before, still on their way)."""
        waiting = list(document_ids)
        if conversation_id is not None:
            for document in await self.of_conversation(conversation_id):
                if document.status != DocumentStatus.READY and document.id not in waiting:
                    waiting.append(document.id)
        return waiting

    async def wait_ready(self, document_ids: Iterable[int]) -> list[Document]:
        """Wait until these attachments are indexed (one removed meanwhile is left out).
        Raises AttachmentFailed, naming the file and the reason, for one whose indexing
        failed: the message that carries it is not sent."""
        waiting = list(document_ids)
        if not waiting:
            return []
        news = asyncio.Event()
        unsubscribe = [
            self.events.subscribe(kind, lambda _event: news.set())
            for kind in (ev.DocumentChanged, ev.DocumentRemoved)
        ]
        try:
            while True:
                news.clear()  # before reading: news from here on wakes the wait below
                documents = await self.store.run(_existing, waiting)
                for document in documents:
                    if document.status == DocumentStatus.ERROR:
                        raise AttachmentFailed(
                            f"{document.name} could not be attached: {document.error} "
                            "Remove it from the message, or attach it again."
                        )
                if all(d.status == DocumentStatus.READY for d in documents):
                    return documents
                await news.wait()
        finally:
            for stop in unsubscribe:
                stop()

    # -- removing --------------------------------------------------------------------------

    async def remove(self, document_id: int) -> Document:
        """Remove an attachment: its document, passages and copy (the user's file stays)."""
        document = await self.documents.get(document_id)
        if not document.attachment:
            raise DocumentReadError(
                f"{document.name} is in your Documents, not attached to a chat; remove it there."
            )
        removed = await self.documents.remove(document_id)
        await asyncio.to_thread(self._delete_copy, removed.path)
        return removed

    async def forget(self, documents: Iterable[Document]) -> None:
        """Attachments whose rows went with their chat (deleted in the chat's own
        transaction): their vectors, their copies, and the news."""
        for document in documents:
            self.documents.vectors.remove_document(document.id)
            await asyncio.to_thread(self._delete_copy, document.path)
            self.events.emit(ev.DocumentRemoved(document.id))

    async def drop_held(self) -> int:
        """At a start that owns the profile: attachments held by a new chat that was never
        sent (the app closed first) are removed, and so are copies no document owns (the
        app died between copying and queueing, or ``docs remove`` removed one)."""
        held = await self.of_conversation(None)
        for document in held:
            with contextlib.suppress(NotFoundError):  # removed meanwhile
                await self.remove(document.id)
        owned = {Path(path).parent for path in await self.store.run(sql.attachment_paths)}
        await asyncio.to_thread(self._delete_unowned, owned)
        return len(held)

    def _delete_unowned(self, owned: set[Path]) -> None:
        if not self.folder.is_dir():
            return
        for home in self.folder.iterdir():
            if home.is_dir() and home not in owned:
                shutil.rmtree(home, ignore_errors=True)

    def _delete_copy(self, path: str) -> None:
        """Delete an attachment's copy and its folder; only ever inside ours."""
        home = Path(path).parent
        if home.parent != self.folder:
            log.warning("not deleting %s: not an attachment's copy", path)
            return
        shutil.rmtree(home, ignore_errors=True)


def _attachable(path: Path) -> str:
    """The file's kind, or the readers' refusal (a folder is not attached whole)."""
    if path.is_dir():
        raise DocumentReadError(
            f"{path.name} is a folder: attach the files in it, or add the folder in the "
            "Documents tab."
        )
    return check_readable(path)


def _existing(db, document_ids: list[int]) -> list[Document]:
    found = []
    for document_id in document_ids:
        try:
            found.append(sql.fetch_document(db, document_id))
        except NotFoundError:
            continue
    return found
