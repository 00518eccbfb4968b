"""The messages of the conversation on screen, as a Qt list model.

It only translates: the conversations controller loads a conversation with :meth:`set_conversation`,
and core events keep it current — ``MESSAGE_ADDED`` inserts a row, streamed chunks
(``MESSAGE_UPDATED``) are gathered for :data:`STREAM_BATCH_MS` and then announced with
one ``dataChanged`` for that row and the content role only, so a long answer streams
without re-rendering per token or re-laying out the whole transcript. A finished answer
is announced at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QImage

from acai_desktop.core.clock import parse_iso
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.core.turns.citations import Citation
from acai_desktop.ui.models.record_list_model import RecordListModel

#: How long streamed chunks are gathered before the view hears of them (30-60 ms keeps
#: text flowing while a 200 tokens/s answer re-renders about 25 times a second).
STREAM_BATCH_MS = 40


class MessageRoles(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    ROLE = Qt.ItemDataRole.UserRole + 2  # "user" or "assistant"
    CONTENT = Qt.ItemDataRole.UserRole + 3
    STATUS = Qt.ItemDataRole.UserRole + 4  # MessageStatus value
    ERROR = Qt.ItemDataRole.UserRole + 5
    CREATED_AT = Qt.ItemDataRole.UserRole + 6
    SOURCES_COUNT = Qt.ItemDataRole.UserRole + 7  # memories + passages that fed it; None: unknown
    MESSAGE = Qt.ItemDataRole.UserRole + 8  # the Message record
    CITATIONS = Qt.ItemDataRole.UserRole + 9  # its numbered sources (core.turns.citations.Citation)
    ATTACHMENTS = Qt.ItemDataRole.UserRole + 10  # a user message's: the files sent with it
    IMAGES = Qt.ItemDataRole.UserRole + 11  # a user message's: its images (MessageImage)


@dataclass(frozen=True)
class MessageImage:
    """An image a user message was sent with, as its bubble shows it."""

    document_id: int
    name: str
    #: Its thumbnail (None: not decoded yet; a null image: it can't be).
    thumbnail: QImage | None = field(default=None, compare=False)
    #: Whether ``thumbnail`` is there (what a change of it compares).
    decoded: bool = False


# Roles that change when an answer finishes (its status and, on failure, the reason).
FINISH_ROLES = [
    MessageRoles.CONTENT,
    MessageRoles.STATUS,
    MessageRoles.ERROR,
    MessageRoles.CITATIONS,
    Qt.ItemDataRole.DisplayRole,
]


def message_time_tooltip(message: Message) -> str:
    """When ``message`` was written, as hovering it shows: the local date and time."""
    try:
        at = parse_iso(message.created_at)
    except (TypeError, ValueError):
        return ""  # an imported dialogue's odd time: no tooltip rather than a wrong one
    verb = "Sent" if message.role == "user" else "Written"
    return f"{verb} {at.astimezone():%Y-%m-%d %H:%M}"


class MessagesModel(RecordListModel):
    roles = MessageRoles

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.conversation_id: int | None = None
        self._sources: dict[int, int] = {}
        #: Each answer's numbered sources (answers without any are not listed).
        self._citations: dict[int, tuple[Citation, ...]] = {}
        #: The files each user message was sent with, by message id.
        self._attachments: dict[int, tuple[str, ...]] = {}
        #: The images among them, with their thumbnails.
        self._images: dict[int, tuple[MessageImage, ...]] = {}
        #: Rows by message id: a streamed chunk finds its row many times a second.
        self._row_of: dict[int, int] = {}
        self._streamed_rows: set[int] = set()  # rows with chunks not yet announced
        self._batch_timer = QTimer(self)
        self._batch_timer.setSingleShot(True)
        self._batch_timer.setInterval(STREAM_BATCH_MS)
        self._batch_timer.timeout.connect(self.flush_streamed)

    def value(self, message: Message, role: int):
        if role in (Qt.ItemDataRole.DisplayRole, MessageRoles.CONTENT):
            return message.content
        if role == MessageRoles.ID:
            return message.id
        if role == MessageRoles.ROLE:
            return message.role
        if role == MessageRoles.STATUS:
            return message.status.value
        if role == MessageRoles.ERROR:
            return message.error
        if role == MessageRoles.CREATED_AT:
            return message.created_at
        if role == MessageRoles.SOURCES_COUNT:
            return self._sources.get(message.id)
        if role == MessageRoles.MESSAGE:
            return message
        if role == MessageRoles.CITATIONS:
            return self._citations.get(message.id, ())
        if role == MessageRoles.ATTACHMENTS:
            return self._attachments.get(message.id, ())
        if role == MessageRoles.IMAGES:
            return self._images.get(message.id, ())
        if role == Qt.ItemDataRole.ToolTipRole:
            return message_time_tooltip(message)
        return None

    # -- loading -----------------------------------------------------------------------

    def set_conversation(
        self,
        conversation_id: int | None,
        messages: list[Message],
        sources_count: dict[int, int] | None = None,
        citations: dict[int, tuple[Citation, ...]] | None = None,
    ) -> None:
        """Show ``messages`` of ``conversation_id`` (None: a new chat, nothing yet);
        ``citations``: the answers' numbered sources (of every version and branch)."""
        self._streamed_rows.clear()
        self.conversation_id = conversation_id
        self._sources = dict(sources_count or {})
        self._citations = dict(citations or {})
        self._row_of = {message.id: row for row, message in enumerate(messages)}
        self._reset(messages)

    def on_transcript_changed(self, event) -> None:
        """Another version of an answer or another branch is shown
        (``events.TranscriptChanged``): the conversation's shown messages now."""
        if event.conversation_id != self.conversation_id:
            return
        self._streamed_rows.clear()
        self._sources.update(event.sources_count)
        self._row_of = {message.id: row for row, message in enumerate(event.messages)}
        self._reset(list(event.messages))

    def row_of(self, message_id: int) -> int | None:
        return self._row_of.get(message_id)

    def sources_count_of(self, message_id: int) -> int | None:
        return self._sources.get(message_id)

    def citations_of(self, message_id: int) -> tuple[Citation, ...]:
        return self._citations.get(message_id, ())

    message_at = RecordListModel.record_at
    messages = RecordListModel.records

    # -- core events -------------------------------------------------------------------

    def on_message_added(self, message: Message) -> None:
        if message.conversation_id != self.conversation_id or message.id in self._row_of:
            return
        row = len(self._records)
        self.beginInsertRows(QModelIndex(), row, row)
        self._records.append(message)
        self._row_of[message.id] = row
        self.endInsertRows()

    def on_message_updated(self, delta) -> None:
        """A streamed chunk or a finished answer (``events.MessageDelta``)."""
        row = self._row_of.get(delta.message_id)
        if row is None:
            return
        current = self._records[row]
        status = MessageStatus(delta.status)
        finished = status != current.status
        # A chunk carries no error; a finish or a restart (retry) clears the old one.
        error = current.error if not finished else None
        self._records[row] = replace(current, content=delta.content, status=status, error=error)
        if not finished:
            self._streamed_rows.add(row)
            if not self._batch_timer.isActive():
                self._batch_timer.start()
            return
        self.flush_streamed()
        self._changed(row, FINISH_ROLES)

    def flush_streamed(self) -> None:
        """Announce the chunks gathered since the last batch (one row, one role each)."""
        self._batch_timer.stop()
        rows, self._streamed_rows = sorted(self._streamed_rows), set()
        for row in rows:
            if row < len(self._records):
                self._changed(row, [MessageRoles.CONTENT])

    def on_answer_finished(self, event) -> None:
        """An answer is done (complete, stopped or failed): its stored row, with its
        error, and how many sources fed it (``events.AnswerFinished``): memories,
        passages, and the user's custom instructions (one source) when used; and its
        numbered sources, which its ``[n]`` markers cite."""
        if event.citations:
            self._citations[event.message.id] = tuple(event.citations)
        else:
            self._citations.pop(event.message.id, None)
        self.update_message(event.message)
        count = len(event.sources) + len(event.evidence) + (event.instructions is not None)
        self.set_sources_count(event.message.id, count)

    def update_message(self, message: Message) -> None:
        """The stored row, as the orchestrator returned it (carries the error text)."""
        row = self._row_of.get(message.id)
        if row is None:
            return
        if not message.versions:  # a row read alone knows nothing of its siblings
            message = replace(message, versions=self._records[row].versions)
        self._records[row] = message
        self._changed(row, FINISH_ROLES)

    def set_attachments(
        self,
        names_by_message: dict[int, tuple[str, ...]],
        images_by_message: dict[int, tuple[MessageImage, ...]] | None = None,
    ) -> None:
        """The files each user message was sent with (the names shown under it) and
        its images (their thumbnails). Kept by message id, whatever chat is shown: ids
        are the profile's."""
        images_by_message = images_by_message or {}
        for message_id, names in names_by_message.items():
            images = images_by_message.get(message_id, ())
            if (self._attachments.get(message_id, ()), self.images_of(message_id)) == (
                names,
                images,
            ):
                continue
            self._attachments[message_id] = names
            self._images[message_id] = images
            row = self._row_of.get(message_id)
            if row is not None:
                self._changed(row, [MessageRoles.ATTACHMENTS, MessageRoles.IMAGES])

    def images_of(self, message_id: int) -> tuple[MessageImage, ...]:
        return self._images.get(message_id, ())

    def set_sources_count(self, message_id: int, count: int) -> None:
        row = self._row_of.get(message_id)
        if row is None:
            return
        self._sources[message_id] = count
        self._changed(row, [MessageRoles.SOURCES_COUNT])
