"""What the search box found, as a Qt list model: each row a conversation (by its
title) or one of its messages, shown as two lines of plain text (the chat's title,
then who said what). The item view's default delegate paints DisplayRole as plain
text, so a title or message reading ``<b>…</b>`` shows literally."""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import Qt

from acai_desktop.core.records.conversations import ConversationHit
from acai_desktop.ui.models.record_list_model import RecordListModel

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


class SearchResultsModel(RecordListModel):
    roles = SearchRoles

    def value(self, hit: ConversationHit, role: int):
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
        self._reset(hits)

    hit_at = RecordListModel.record_at
