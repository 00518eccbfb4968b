"""Attachments: files attached to the shown chat from the composer (the paperclip, a
paste of files or of an image), dropped onto the chat, or a paste too long for a
message; their chips above the composer; removing one.

A document stays the chat's (quoted in each of its turns), so its chip stays too. An
image goes with one message only (core/turns/turn_images.py): its chip, with its
thumbnail, waits in the composer until a message carries it, then the image shows
under that message instead.

The core does the work (:class:`~acai_desktop.core.documents.attachments.ChatAttachments`):
a file the readers refuse is refused at once and the composer says why; an accepted
one is indexed by the job runner, and the document news keep its chip's state. A new
chat's attachments are held until its first message starts it. Sending waits for the
chat's attachments to be indexed (the chat controller passes :meth:`for_send` to the
turn, and the composer says what it waits for).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from acai_desktop.core.documents.images import IMAGE_SUFFIXES
from acai_desktop.core.documents.model import DocumentReadError, sent_with
from acai_desktop.ui.controllers.base import Controller, Services, in_background, short
from acai_desktop.ui.long_message import pasted_note
from acai_desktop.ui.models.messages_model import MessageImage
from acai_desktop.ui.thumbnails import Thumbnails, is_image, png_bytes
from acai_desktop.ui.widgets.attachment_strip import progress_text
from acai_desktop.ui.widgets.documents_panel import FILE_FILTERS
from acai_desktop.ui.widgets.file_dialogs import file_dialog

#: The paperclip's choices: the documents' types, images, or any file.
IMAGE_FILTER = f"Images ({' '.join('*' + suffix for suffix in IMAGE_SUFFIXES)})"
ATTACH_FILTERS = [IMAGE_FILTER, *FILE_FILTERS]

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.documents.model import Document
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.main_window import MainWindow


class AttachmentsController(Controller):
    def __init__(self, window: MainWindow, services: Services, chat: CurrentChat) -> None:
        super().__init__(services)
        self.window, self.chat = window, chat
        composer = self.composer = window.composer
        self.strip = composer.attachments
        #: The images' thumbnails, for their chips and the messages that carried them.
        self.thumbnails = Thumbnails()
        composer.attach_requested.connect(self.choose_files)
        composer.files_attached.connect(self.attach)
        composer.long_text_pasted.connect(self.attach_text)
        composer.image_pasted.connect(self.attach_pasted_image)
        window.chat_drop.files_dropped.connect(self.attach)
        self.strip.remove_requested.connect(self.remove)
        chat.shown.connect(self._on_chat_shown)
        #: The shown chat's attachments, as last read (the messages may load after them).
        self._shown: list[Document] = []
        #: The shown chat's images that a message carried (their chips are gone).
        self._sent_images: set[int] = set()
        messages = window.messages_model
        messages.modelReset.connect(lambda: self._show_on_messages(self._shown))
        messages.rowsInserted.connect(lambda: self._show_on_messages(self._shown))
        events = window.events
        events.document_added.connect(self._on_document_news)
        events.document_changed.connect(self._on_document_news)
        events.document_removed.connect(self.strip.remove_attachment)
        events.document_removed.connect(self.thumbnails.forget)
        events.indexing_progress_changed.connect(self._on_indexing_progress)

    async def load(self, assistant: Assistant) -> None:
        """Show the shown chat's attachments (the news keep them current from then on)."""
        await self._show(assistant, self.chat.conversation_id)

    # -- attaching -------------------------------------------------------------------------

    def choose_files(self) -> QFileDialog:
        dialog = file_dialog(self.window, "Attach files to this chat")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(ATTACH_FILTERS)
        dialog.selectNameFilter(FILE_FILTERS[-1])  # any file: a document or an image
        dialog.filesSelected.connect(self.attach)
        dialog.open()  # never exec(): no nested loop
        return dialog

    @in_background("attach")
    async def attach(self, assistant: Assistant, paths: list[str]) -> None:
        """Attach each file to the shown chat; a refusal is said at once, in the composer
        (each names its file), and the others are still attached."""
        conversation_id = self.chat.conversation_id
        # The last attach's news goes now: what is said after this (a send waiting for
        # these files) must not be wiped when they are done.
        self.composer.show_attach_note("")
        refused = []
        for path in paths:
            try:
                await assistant.attachments.attach_file(path, conversation_id)
            except DocumentReadError as error:
                refused.append(str(error))
        if refused:
            self.composer.show_attach_note("Not attached — " + "\n".join(refused), problem=True)

    @in_background("attach-paste")
    async def attach_text(self, assistant: Assistant, text: str) -> None:
        """A paste over the prompt budget: attached as a text document of the chat."""
        document = await assistant.attachments.attach_text(text, self.chat.conversation_id)
        self.composer.show_attach_note(pasted_note(text, document.name))

    @in_background("attach-image")
    async def attach_pasted_image(self, assistant: Assistant, image: QImage) -> None:
        """An image pasted from the clipboard: attached as a PNG; refused, saying why,
        as a file is (over the size limit)."""
        self.composer.show_attach_note("")
        data = await asyncio.to_thread(png_bytes, image)
        try:
            await assistant.attachments.attach_image(data, self.chat.conversation_id)
        except DocumentReadError as error:
            self.composer.show_attach_note(f"Not attached — {error}", problem=True)

    @in_background("attachment-remove")
    async def remove(self, assistant: Assistant, document_id: int) -> None:
        document = await assistant.attachments.remove(document_id)
        self.composer.show_attach_note("")
        self.say(f"Removed the attachment “{short(document.name)}” from the chat.")

    # -- sending ---------------------------------------------------------------------------

    def for_send(self) -> list[int]:
        """The attachments the message being sent waits for (the chat's, as shown); the
        composer says which are not indexed yet."""
        waiting = self.strip.being_indexed()
        if waiting:
            names = ", ".join(f"“{short(d.name)}”" for d in waiting)
            self.composer.show_attach_note(
                f"Waiting for {names} to be indexed; your message is sent once "
                f"{'it is' if len(waiting) == 1 else 'they are'}."
            )
        return self.strip.document_ids()

    def turn_ended(self, refusal: str | None) -> None:
        """The send is over: the waiting note goes; a refusal (an attachment that failed)
        stays in its place, with the message kept in the composer. The message sent
        shows the files it was sent with."""
        self.composer.show_attach_note(refusal or "", problem=refusal is not None)
        assistant = self.services.assistant
        if assistant is not None and self.chat.conversation_id is not None:
            self.services.run(self._show(assistant, self.chat.conversation_id), "attachments")

    # -- the chips follow the news ---------------------------------------------------------

    def _belongs_here(self, document: Document) -> bool:
        return document.attachment and document.conversation_id == self.chat.conversation_id

    def _on_document_news(self, document: Document) -> None:
        if self._belongs_here(document) and document.id not in self._sent_images:
            self.strip.show_attachment(document)
            if is_image(document):
                self.services.run(self._show_thumbnails([document]), "thumbnails")

    def _on_indexing_progress(self, document_id: int, stage: str, done: int, total: int) -> None:
        self.strip.show_progress(document_id, progress_text(stage, done, total))

    def _on_chat_shown(self, conversation_id: int | None) -> None:
        assistant = self.services.assistant
        self.composer.show_attach_note("")
        self.strip.set_attachments([])
        self._shown, self._sent_images = [], set()
        self.window.documents_panel.set_chat_files([])
        if assistant is not None:
            self.services.run(self._show(assistant, conversation_id), "attachments")

    async def _show(self, assistant: Assistant, conversation_id: int | None) -> None:
        documents = await assistant.attachments.of_conversation(conversation_id)
        # Another chat may have been shown meanwhile: it shows its own.
        if self.chat.conversation_id == conversation_id:
            self._shown = documents
            self.window.documents_panel.set_chat_files([d.name for d in documents])
            self._show_on_messages(documents)
            self.strip.set_attachments([d for d in documents if d.id not in self._sent_images])
            await self._show_thumbnails(documents)

    async def _show_thumbnails(self, documents: list[Document]) -> None:
        """Decode the images' thumbnails not decoded yet, then show them on their chips
        and under the messages that carried them."""
        decoded = await self.thumbnails.load(documents)
        for document in documents:
            image = self.thumbnails.get(document.id)
            if image is not None:
                self.strip.show_thumbnail(document.id, image)
        if decoded:
            self._show_on_messages(self._shown)

    def _show_on_messages(self, documents: list[Document]) -> None:
        """Each sent message shows the files it was sent with (under its bubble), its
        images as thumbnails; an image a message carried leaves the composer."""
        messages = self.window.messages_model
        said = [(m.id, m.created_at) for m in messages.messages() if m.role == "user"]
        sent = sent_with(documents, said)
        self._sent_images = {d.id for files in sent.values() for d in files if is_image(d)}
        for document_id in self._sent_images:
            self.strip.remove_attachment(document_id)
        messages.set_attachments(
            {message_id: tuple(d.name for d in files) for message_id, files in sent.items()},
            {
                message_id: tuple(self._message_image(d) for d in files if is_image(d))
                for message_id, files in sent.items()
            },
        )

    def _message_image(self, document: Document) -> MessageImage:
        thumbnail = self.thumbnails.get(document.id)
        return MessageImage(document.id, document.name, thumbnail, thumbnail is not None)
