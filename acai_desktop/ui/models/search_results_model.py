"""What the search box found, as a Qt list model: each row a conversation (by its
title) or one of its messages, shown as two lines of plain text (the chat's title,
then who said what). The item view's default delegate paints DisplayRole as plain
text, so a title or message reading ``<b>…</b>`` shows literally."""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from acai_desktop.core.records import ConversationHit

Index = QModelIndex | QPersistentModelIndex
UNTITLED = "New conversation"
TITLE_MATCH_TEXT = "Conversation title"


class SearchRoles(IntEnum):
    CONVERSATION_ID = Qt.ItemDataRole.UserRole + 1
    #: The message to open at; None for a hit on the conversation's title.
    MESSAGE_ID = Qt.ItemDataRole.UserRole + 2
    HIT = Qt.ItemDataRole.UserRole + 3


def hit_lines(hit: ConversationHit) -> tuple[str, str]:
    """(the chat's title, what matched in it) as shown in the list."""
    title = hit.title or UNTITLED
    if hit.temporary:
        title += "  · temporary"
    if hit.message_id is None:
        return title, TITLE_MATCH_TEXT
    speaker = "You" if hit.role == "user" else "ACAI"
    return title, f"{speaker}: {hit.snippet}"


class SearchResultsModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._hits: list[ConversationHit] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._hits)

    def roleNames(self) -> dict[int, bytes]:
        return {role.value: role.name.lower().encode() for role in SearchRoles}

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return "\n".join(hit_lines(hit))
        if role == Qt.ItemDataRole.ToolTipRole:
            title, line = hit_lines(hit)
            return f"{title}\n{line}\n{hit.created_at[:16].replace('T', ' ')}"
        if role == SearchRoles.CONVERSATION_ID:
            return hit.conversation_id
        if role == SearchRoles.MESSAGE_ID:
            return hit.message_id
        if role == SearchRoles.HIT:
            return hit
        return None

    def set_hits(self, hits: list[ConversationHit]) -> None:
        self.beginResetModel()
        self._hits = list(hits)
        self.endResetModel()

    def hit_at(self, row: int) -> ConversationHit:
        return self._hits[row]
