"""Conversations: show one, start a new (or temporary) chat, rename, export, delete,
search them, and keep the list's title and order up to date as messages arrive."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from acai_desktop.core.conversation_export import export_text, write_export
from acai_desktop.core.records import Conversation
from acai_desktop.ui.actions.base import ActionGroup, in_background

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.main_window import MainWindow

NEW_CONVERSATION_TITLE = "New conversation"
TEMPORARY_CONVERSATION_TITLE = "Temporary chat"
#: Opening a conversation (from the list or at a recalled message): a newer one wins.
LOAD_TASK = "load"
#: The search box's query: a newer one cancels the one still running.
SEARCH_TASK = "conversation-search"
SEARCH_LIMIT = 50


class ConversationActions(ActionGroup):
    def connect(self, window: MainWindow) -> None:
        window.new_conversation_requested.connect(self.new_chat)
        window.new_temporary_conversation_requested.connect(self.new_temporary_chat)
        window.open_conversation_requested.connect(self.open)
        window.conversation_rename_requested.connect(self.rename)
        window.conversation_delete_requested.connect(self.delete)
        window.conversation_export_requested.connect(self.export)
        window.conversation_refresh_requested.connect(self.refresh)
        window.conversation_search_requested.connect(self.search)
        window.conversation_pin_requested.connect(self.set_pinned)

    async def load_all(self) -> None:
        """The conversation list, the memory panel's first page and the latest chat, from
        the database opened first (the assistant may still be starting)."""
        data, window = self.session.profile_data, self.window
        assert data is not None and window is not None
        # The memory panel reads its first page while the conversations load (both on
        # the database thread, in turn); later pages come as the user scrolls.
        first_page = window.memories_model.attach(data.read_panel, data.count_panel)
        conversations = await data.conversations.list()
        window.conversations_model.set_conversations(conversations)
        window.memory_panel.instructions_box.set_instructions(await data.profile_instructions())
        if first_page is not None:
            await asyncio.wait([first_page])
        latest = next((c for c in conversations if not c.temporary), None)
        if latest is not None:
            await self.show(latest)
        else:
            self.show_new_chat()

    async def show(self, conversation: Conversation) -> None:
        session, window = self.session, self.window
        assert window is not None
        data = session.assistant.data if session.assistant is not None else session.profile_data
        assert data is not None
        messages = await data.conversations.messages(conversation.id)
        counts = {}
        for message in messages:
            if message.role == "assistant" and message.status != "streaming":
                used = await data.provenance.sources_of_answer(message.id)
                quoted = await data.provenance.evidence_of_answer(message.id)
                counts[message.id] = len(used) + len(quoted) + (message.instructions is not None)
        session.conversation_id = conversation.id
        window.show_conversation(
            conversation.id,
            conversation.title or NEW_CONVERSATION_TITLE,
            messages,
            counts,
            temporary=conversation.temporary,
        )

    def show_new_chat(self, *, temporary: bool = False) -> None:
        assert self.window is not None
        self.session.conversation_id = None
        self.session.new_chat_temporary = temporary
        title = TEMPORARY_CONVERSATION_TITLE if temporary else NEW_CONVERSATION_TITLE
        self.window.show_conversation(None, title, [], temporary=temporary)

    def new_chat(self) -> None:
        self.show_new_chat()
        if self.window is not None:
            self.window.focus_composer()

    def new_temporary_chat(self) -> None:
        self.show_new_chat(temporary=True)
        if self.window is not None:
            self.window.focus_composer()

    @in_background(LOAD_TASK)
    async def open(self, assistant: Assistant, conversation_id: int) -> None:
        await self.show(await assistant.conversations.get(conversation_id))

    @in_background("conversation-rename")
    async def rename(self, assistant: Assistant, conversation_id: int, title: str) -> None:
        # The list and the header follow the CONVERSATION_CHANGED news.
        await assistant.conversation_service.rename(conversation_id, title)

    @in_background("conversation-pin")
    async def set_pinned(self, assistant: Assistant, conversation_id: int, pinned: bool) -> None:
        # The list follows the CONVERSATION_CHANGED news (the pinned chat moves up).
        service = assistant.conversation_service
        await (service.pin if pinned else service.unpin)(conversation_id)

    @in_background("conversation-delete")
    async def delete(self, assistant: Assistant, conversation_id: int) -> None:
        session = self.session
        if session.turn_conversation_id in (conversation_id, None):
            # Its answer is being written: stop it (what was written is saved, its
            # jobs queued) before the messages go, so nothing writes to them after.
            await session.stop_turn()
        await assistant.conversation_service.delete(conversation_id)
        if conversation_id == session.conversation_id:
            self.show_new_chat()
        self.say("Conversation deleted. What ACAI learned from it stays in your memories.")

    @in_background("conversation-export")
    async def export(
        self, assistant: Assistant, conversation_id: int, path: str, file_format: str
    ) -> None:
        conversation = await assistant.conversations.get(conversation_id)
        messages = await assistant.conversations.messages(conversation_id)
        text = export_text(conversation, messages, file_format)
        await asyncio.to_thread(write_export, path, text)  # a slow disk never stalls the window
        self.say(f"Exported {len(messages)} messages to {path}")

    @in_background(SEARCH_TASK)
    async def search(self, assistant: Assistant, query: str) -> None:
        hits = await assistant.conversations.search(query, SEARCH_LIMIT)
        if self.window is not None:
            self.window.show_search_results(query, hits)

    def refresh(self, conversation_id: int) -> None:
        """A message was added: the conversation's title (from its first message) and
        its place in the list change now."""
        if self.session.assistant is not None:
            self._refresh(conversation_id)

    @in_background("refresh-conversation")
    async def _refresh(self, assistant: Assistant, conversation_id: int) -> None:
        window = self.window
        assert window is not None
        conversation = await assistant.conversations.get(conversation_id)
        window.conversations_model.on_conversation_changed(conversation)
        if conversation_id == self.session.conversation_id:
            window.set_conversation_title(conversation.title or NEW_CONVERSATION_TITLE)
            window.conversation_list.select_conversation(conversation_id)
