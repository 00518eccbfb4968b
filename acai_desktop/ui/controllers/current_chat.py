"""The chat on screen, in one object: which conversation it is (None: a new chat, not on
disk yet), whether that new chat is to be temporary, and which conversation the answer
being written belongs to. Controllers read it; only the conversations controller (what is
shown) and the chat controller (what is sent) change it."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from acai_desktop.core.conversations.chat_settings import ChatSettings


class CurrentChat(QObject):
    #: Another conversation is shown (its id; None for a new chat).
    shown = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conversation_id: int | None = None
        #: Whether the new chat (conversation_id None) is to be a temporary one.
        self.new_chat_temporary = False
        #: The project the new chat (conversation_id None) starts in (None: outside any).
        self.new_chat_project_id: int | None = None
        #: The conversation of the answer being written (None: none, or not on disk yet).
        self.turn_conversation_id: int | None = None
        #: The new chat's own model settings, chosen in its header before it is on disk
        #: (its first message saves them with it).
        self.new_chat_settings: ChatSettings | None = None
        #: Whether the new chat is to be local only from its first message (chosen in
        #: its ⚙; a local-only project's new chat is local only anyway).
        self.new_chat_local_only = False

    def show(
        self,
        conversation_id: int | None,
        *,
        temporary: bool = False,
        project_id: int | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.new_chat_temporary = temporary if conversation_id is None else False
        self.new_chat_project_id = project_id if conversation_id is None else None
        self.new_chat_settings = None  # sent with the first message, or left behind
        self.new_chat_local_only = False
        self.shown.emit(conversation_id)
