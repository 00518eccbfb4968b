"""The messages of the conversation on screen, as a Qt list model.

It only translates: the session loads a conversation with :meth:`set_conversation`,
and core events keep it current — ``MESSAGE_ADDED`` inserts a row, streamed chunks
(``MESSAGE_UPDATED``) are gathered for :data:`STREAM_BATCH_MS` and then announced with
one ``dataChanged`` for that row and the content role only, so a long answer streams
without re-rendering per token or re-laying out the whole transcript. A finished answer
is announced at once.
"""

from __future__ import annotations

from dataclasses import replace
from enum import IntEnum

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, QTimer

from acai_desktop.core.records import Message, MessageStatus

Index = QModelIndex | QPersistentModelIndex
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


# Roles that change when an answer finishes (its status and, on failure, the reason).
FINISH_ROLES = [
    MessageRoles.CONTENT,
    MessageRoles.STATUS,
    MessageRoles.ERROR,
    Qt.ItemDataRole.DisplayRole,
]


class MessagesModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.conversation_id: int | None = None
        self._messages: list[Message] = []
        self._sources: dict[int, int] = {}
        self._row_of: dict[int, int] = {}
        self._streamed_rows: set[int] = set()  # rows with chunks not yet announced
        self._batch_timer = QTimer(self)
        self._batch_timer.setSingleShot(True)
        self._batch_timer.setInterval(STREAM_BATCH_MS)
        self._batch_timer.timeout.connect(self.flush_streamed)

    # -- Qt model interface ----------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._messages)

    def roleNames(self) -> dict[int, bytes]:
        return {role.value: role.name.lower().encode() for role in MessageRoles}

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._messages):
            return None
        message = self._messages[index.row()]
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
        return None

    # -- loading -----------------------------------------------------------------------

    def set_conversation(
        self,
        conversation_id: int | None,
        messages: list[Message],
        sources_count: dict[int, int] | None = None,
    ) -> None:
        """Show ``messages`` of ``conversation_id`` (None: a new chat, nothing yet)."""
        self.beginResetModel()
        self._streamed_rows.clear()
        self.conversation_id = conversation_id
        self._messages = list(messages)
        self._sources = dict(sources_count or {})
        self._reindex()
        self.endResetModel()

    def row_of(self, message_id: int) -> int | None:
        return self._row_of.get(message_id)

    def sources_count_of(self, message_id: int) -> int | None:
        return self._sources.get(message_id)

    def last_user_row(self) -> int | None:
        for row in range(len(self._messages) - 1, -1, -1):
            if self._messages[row].role == "user":
                return row
        return None

    def message_at(self, row: int) -> Message:
        return self._messages[row]

    def messages(self) -> list[Message]:
        return list(self._messages)

    # -- core events -------------------------------------------------------------------

    def on_message_added(self, message: Message) -> None:
        if message.conversation_id != self.conversation_id or message.id in self._row_of:
            return
        row = len(self._messages)
        self.beginInsertRows(QModelIndex(), row, row)
        self._messages.append(message)
        self._row_of[message.id] = row
        self.endInsertRows()

    def on_message_updated(self, delta) -> None:
        """A streamed chunk or a finished answer (``orchestrator.MessageDelta``)."""
        row = self._row_of.get(delta.message_id)
        if row is None:
            return
        current = self._messages[row]
        status = MessageStatus(delta.status)
        finished = status != current.status
        # A chunk carries no error; a finish or a restart (retry) clears the old one.
        error = current.error if not finished else None
        self._messages[row] = replace(current, content=delta.content, status=status, error=error)
        if not finished:
            self._streamed_rows.add(row)
            if not self._batch_timer.isActive():
                self._batch_timer.start()
            return
        self.flush_streamed()
        index = self.index(row)
        self.dataChanged.emit(index, index, FINISH_ROLES)

    def flush_streamed(self) -> None:
        """Announce the chunks gathered since the last batch (one row, one role each)."""
        self._batch_timer.stop()
        rows, self._streamed_rows = sorted(self._streamed_rows), set()
        for row in rows:
            if row < len(self._messages):
                index = self.index(row)
                self.dataChanged.emit(index, index, [MessageRoles.CONTENT])

    def on_answer_finished(self, event) -> None:
        """An answer is done (complete, stopped or failed): its stored row, with its
        error, and how many sources fed it (``events.AnswerFinished``): memories,
        passages, and the user's custom instructions (one source) when used."""
        self.update_message(event.message)
        count = len(event.sources) + len(event.evidence) + (event.instructions is not None)
        self.set_sources_count(event.message.id, count)

    def update_message(self, message: Message) -> None:
        """The stored row, as the orchestrator returned it (carries the error text)."""
        row = self._row_of.get(message.id)
        if row is None:
            return
        self._messages[row] = message
        index = self.index(row)
        self.dataChanged.emit(index, index, FINISH_ROLES)

    def set_sources_count(self, message_id: int, count: int) -> None:
        row = self._row_of.get(message_id)
        if row is None:
            return
        self._sources[message_id] = count
        index = self.index(row)
        self.dataChanged.emit(index, index, [MessageRoles.SOURCES_COUNT])

    def _reindex(self) -> None:
        self._row_of = {message.id: row for row, message in enumerate(self._messages)}
