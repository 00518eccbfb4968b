"""The conversations of the profile, pinned first, then most recently active first, as
a Qt list model.

The conversations controller loads the list; the core's news keeps it current: a new
conversation is inserted, and a turn's ``ConversationChanged`` (its title and
``updated_at`` change then) moves it to the top (of the unpinned ones, unless it is
pinned). A rename keeps its place; pinning moves it up, unpinning back among the others;
a deleted conversation leaves the list.
Temporary chats are listed too, marked (ACAI learns nothing from them).
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import QModelIndex, Qt

from acai_desktop.core.records import Conversation
from acai_desktop.ui.models.record_list_model import RecordListModel

UNTITLED = "New conversation"
TEMPORARY_NOTE = "Temporary — nothing is remembered"
PINNED_NOTE = "Pinned to the top of the list"


class ConversationRoles(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    TITLE = Qt.ItemDataRole.UserRole + 2
    UPDATED_AT = Qt.ItemDataRole.UserRole + 3
    CONVERSATION = Qt.ItemDataRole.UserRole + 4
    TEMPORARY = Qt.ItemDataRole.UserRole + 5
    PINNED = Qt.ItemDataRole.UserRole + 6


class ConversationsModel(RecordListModel):
    roles = ConversationRoles

    def value(self, conversation: Conversation, role: int):
        if role in (Qt.ItemDataRole.DisplayRole, ConversationRoles.TITLE):
            return conversation.title or UNTITLED
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = f"{conversation.title or UNTITLED}\nLast active {conversation.updated_at[:16]}"
            if conversation.pinned:
                tip += f"\n{PINNED_NOTE}"
            return f"{tip}\n{TEMPORARY_NOTE}" if conversation.temporary else tip
        if role == ConversationRoles.TEMPORARY:
            return conversation.temporary
        if role == ConversationRoles.PINNED:
            return conversation.pinned
        if role == ConversationRoles.ID:
            return conversation.id
        if role == ConversationRoles.UPDATED_AT:
            return conversation.updated_at
        if role == ConversationRoles.CONVERSATION:
            return conversation
        return None

    def set_conversations(self, conversations: list[Conversation]) -> None:
        self._reset(sorted(conversations, key=_order_key, reverse=True))

    conversation_at = RecordListModel.record_at

    def on_conversation_changed(self, conversation: Conversation) -> None:
        """A conversation was created or changed: show it with its new title, in its
        place (pinned first, then by last activity: a new message brings it up, a rename
        doesn't)."""
        row = self.row_of(conversation.id)
        if row is None:
            target = self._place_of(conversation, self._records)
            self.beginInsertRows(QModelIndex(), target, target)
            self._records.insert(target, conversation)
            self.endInsertRows()
            return
        self._records[row] = conversation
        others = self._records[:row] + self._records[row + 1 :]
        target = self._place_of(conversation, others)
        if target != row:
            # Qt counts the destination before the move: below the row it is one more.
            destination = target if target < row else target + 1
            self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), destination)
            self._records.insert(target, self._records.pop(row))
            self.endMoveRows()
        self._changed(target)

    def on_conversation_removed(self, conversation_id: int) -> None:
        row = self.row_of(conversation_id)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._records[row]
        self.endRemoveRows()

    @staticmethod
    def _place_of(conversation: Conversation, others: list[Conversation]) -> int:
        key = _order_key(conversation)
        return sum(1 for other in others if _order_key(other) > key)


def _order_key(conversation: Conversation) -> tuple:
    """Larger first: pinned, then the latest activity (the store's list order)."""
    return (conversation.pinned, conversation.updated_at, conversation.id)
