"""The conversations of the profile, pinned first, then most recently active first, as
a Qt list model.

The conversations controller loads the list; the core's news keeps it current: a new
conversation is inserted, and a turn's ``ConversationChanged`` (its title and
``updated_at`` change then) moves it to the top (of the unpinned ones, unless it is
pinned). A rename keeps its place; pinning moves it up, unpinning back among the others;
a deleted conversation leaves the list.
Temporary chats are listed too, marked (ACAI learns nothing from them); so are the chats
and projects kept local only (a chat of a local-only project is local only too).

Once there is a project, the list is grouped: each project (by name) is a header row
(a :class:`ProjectHeader` record) followed by its chats, then a "Chats" header and the
chats outside any project. The group is the first part of a row's place (its key), so
the one ordering rule places headers and chats alike; a project created, renamed or
deleted rebuilds the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from PySide6.QtCore import QModelIndex, Qt

from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.projects import Project
from acai_desktop.ui.local_only_text import local_only_tip
from acai_desktop.ui.models.record_list_model import RecordListModel

UNTITLED = "New conversation"
TEMPORARY_NOTE = "Temporary — nothing is remembered"
PINNED_NOTE = "Pinned to the top of the list"
#: The header of the chats outside any project (shown once there is a project).
OUTSIDE_PROJECTS = "Chats"
OUTSIDE_PROJECTS_NOTE = "Chats outside any project: they see the memories of no project"


class ConversationRoles(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    TITLE = Qt.ItemDataRole.UserRole + 2
    UPDATED_AT = Qt.ItemDataRole.UserRole + 3
    CONVERSATION = Qt.ItemDataRole.UserRole + 4
    TEMPORARY = Qt.ItemDataRole.UserRole + 5
    PINNED = Qt.ItemDataRole.UserRole + 6
    HEADER = Qt.ItemDataRole.UserRole + 7  # True on a project's header row
    PROJECT_ID = Qt.ItemDataRole.UserRole + 8  # the row's project (None: outside any)
    #: Why the chat (or project) is kept off remote models: "own" (marked) or "project"
    #: (a chat of a local-only project); None: it is not.
    LOCAL_ONLY = Qt.ItemDataRole.UserRole + 9


@dataclass(frozen=True)
class ProjectHeader:
    """The header row of a project's group (``project`` None: the chats outside any)."""

    project: Project | None

    @property
    def key(self) -> tuple[str, int]:
        return ("project", self.project.id if self.project else 0)

    @property
    def name(self) -> str:
        return self.project.name if self.project else OUTSIDE_PROJECTS


class ConversationsModel(RecordListModel):
    roles = ConversationRoles

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._projects: list[Project] = []
        self._group_of: dict[int | None, int] = {None: 0}
        self._project_of: dict[int, Project] = {}

    @staticmethod
    def key_of(record) -> object:
        return record.key if isinstance(record, ProjectHeader) else record.id

    def value(self, record, role: int):
        if isinstance(record, ProjectHeader):
            return self._header_value(record, role)
        conversation = record
        if role == ConversationRoles.HEADER:
            return False
        if role == ConversationRoles.PROJECT_ID:
            return conversation.project_id
        if role in (Qt.ItemDataRole.DisplayRole, ConversationRoles.TITLE):
            return conversation.title or UNTITLED
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = f"{conversation.title or UNTITLED}\nLast active {conversation.updated_at[:16]}"
            if conversation.pinned:
                tip += f"\n{PINNED_NOTE}"
            if why := self._local_only_why(conversation):
                tip += f"\n{local_only_tip(why)}"
            return f"{tip}\n{TEMPORARY_NOTE}" if conversation.temporary else tip
        if role == ConversationRoles.LOCAL_ONLY:
            return self._local_only_why(conversation)
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

    def _local_only_why(self, conversation: Conversation) -> str | None:
        if conversation.local_only:
            return "own"
        project = self._project_of.get(conversation.project_id)
        return "project" if project is not None and project.local_only else None

    def local_only_chat_ids(self) -> frozenset[int]:
        """The chats local only now, themselves or by their project."""
        return frozenset(c.id for c in self.conversations() if self._local_only_why(c))

    def flags(self, index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and isinstance(self._records[index.row()], ProjectHeader):
            return flags & ~Qt.ItemFlag.ItemIsSelectable  # a header is not a chat to open
        return flags

    def _header_value(self, header: ProjectHeader, role: int):
        if role in (Qt.ItemDataRole.DisplayRole, ConversationRoles.TITLE):
            return header.name
        if role == Qt.ItemDataRole.ToolTipRole:
            if header.project is None:
                return OUTSIDE_PROJECTS_NOTE
            tip = f"Project {header.name}: its chats share its memories and documents"
            if header.project.local_only:
                tip += f"\n{local_only_tip('own')}"
            return tip
        if role == ConversationRoles.LOCAL_ONLY:
            return "own" if header.project is not None and header.project.local_only else None
        if role == ConversationRoles.HEADER:
            return True
        if role == ConversationRoles.PROJECT_ID:
            return header.project.id if header.project else None
        return None

    def set_conversations(self, conversations: list[Conversation]) -> None:
        self._rebuild(conversations)

    def set_projects(self, projects: list[Project]) -> None:
        """Group the chats under these projects (by name); no project: no headers."""
        self._projects = sorted(projects, key=lambda p: (p.name.casefold(), p.id))
        self._group_of = {p.id: position for position, p in enumerate(self._projects)}
        self._group_of[None] = len(self._projects)
        self._project_of = {p.id: p for p in self._projects}
        self._rebuild(self.conversations())

    def projects(self) -> list[Project]:
        return list(self._projects)

    def project(self, project_id: int | None) -> Project | None:
        return self._project_of.get(project_id) if project_id is not None else None

    def conversations(self) -> list[Conversation]:
        return [r for r in self._records if not isinstance(r, ProjectHeader)]

    def _rebuild(self, conversations: list[Conversation]) -> None:
        headers = []
        if self._projects:
            headers = [ProjectHeader(p) for p in self._projects] + [ProjectHeader(None)]
        self._reset(sorted([*headers, *conversations], key=self._order_key, reverse=True))

    def _order_key(self, record) -> tuple:
        """Larger first: the group (projects by name, then the chats outside any), its
        header first, then pinned, then the latest activity (the store's list order
        within a group)."""
        if isinstance(record, ProjectHeader):
            group = self._group_of.get(record.project.id if record.project else None, 0)
            return (-group, 1, False, "", 0)
        # A chat of a project the list has not heard of yet sits with the others.
        group = self._group_of.get(record.project_id, self._group_of[None])
        return (-group, 0, *_order_key(record))

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

    def _place_of(self, conversation: Conversation, others: list) -> int:
        key = self._order_key(conversation)
        return sum(1 for other in others if self._order_key(other) > key)


def _order_key(conversation: Conversation) -> tuple:
    """Larger first: pinned, then the latest activity (the store's list order)."""
    return (conversation.pinned, conversation.updated_at, conversation.id)
