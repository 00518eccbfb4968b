"""Conversations: show one, start a new (or temporary) chat, pin, mark local only (after
a question to unmark), rename, export, delete and search them. Its widgets: New chat
and Temporary chat (buttons and shortcuts), Search (button, shortcut and dialog), the
conversation list with its menu's dialogs; its model: the conversations model. A
conversation's title and place in the list follow the core's
``ConversationCreated``/``ConversationChanged`` news (wired by the window)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from acai_desktop.core.records.conversations import Conversation, Message
from acai_desktop.ui.controllers.base import Controller, Services, in_background
from acai_desktop.ui.local_only_text import UNMARK_ACTION, UNMARK_TITLE, unmark_question
from acai_desktop.ui.widgets.dialogs import ask_before

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.profile.data import ProfileData
    from acai_desktop.core.turns.citations import Citation
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.main_window import MainWindow

NEW_CONVERSATION_TITLE = "New conversation"
TEMPORARY_CONVERSATION_TITLE = "Temporary chat"
#: Opening a conversation (from the list or at a recalled message): a newer one wins.
LOAD_TASK = "load"
#: The search box's query: a newer one cancels the one still running.
SEARCH_TASK = "conversation-search"


class ConversationsController(Controller):
    def __init__(self, window: MainWindow, services: Services, chat: CurrentChat) -> None:
        super().__init__(services)
        self.window, self.chat = window, chat
        self.model = window.conversations_model
        window.new_chat_button.clicked.connect(self.new_chat)
        window.new_chat_action.triggered.connect(self.new_chat)
        window.temporary_chat_button.clicked.connect(self.new_temporary_chat)
        window.temporary_chat_action.triggered.connect(self.new_temporary_chat)
        window.search_button.clicked.connect(self.open_search)
        window.search_action.triggered.connect(self.open_search)
        conversation_list = window.conversation_list
        conversation_list.open_conversation_requested.connect(self.open)
        conversation_list.rename_requested.connect(self.ask_rename)
        conversation_list.delete_requested.connect(self.ask_delete)
        conversation_list.export_requested.connect(self.ask_export)
        conversation_list.pin_requested.connect(self.set_pinned)
        conversation_list.local_only_requested.connect(self.ask_local_only)
        #: The last question asked before unmarking a chat (tests answer it).
        self.question = None

    async def load_all(self, data: ProfileData) -> None:
        """The conversation list, the memory panel's first page and the latest chat, from
        the database opened first (the assistant may still be starting)."""
        # The memory panel reads its first page while the conversations load (both on
        # the database thread, in turn); later pages come as the user scrolls.
        first_page = self.window.memories_model.attach(data.read_panel, data.count_panel)
        projects = await data.list_projects()
        conversations = await data.list_conversations()
        self.model.set_projects(projects)
        self.model.set_conversations(conversations)
        self.window.memory_panel.set_projects(projects)
        self.window.documents_panel.set_projects(projects)
        # The user's own instructions, listed in the memory panel apart from memories.
        instructions = await data.profile_instructions()
        self.window.memory_panel.instructions_box.set_instructions(instructions)
        if first_page is not None:
            await asyncio.wait([first_page])
        latest = next((c for c in conversations if not c.temporary), None)
        if latest is None:
            self.show_new_chat()
            return
        messages, counts = await data.messages_with_sources(latest.id)
        self._show(latest, messages, counts, await data.citations(latest.id))

    async def show(self, assistant: Assistant, conversation: Conversation) -> None:
        messages, counts = await assistant.conversations.messages_with_sources(conversation.id)
        citations = await assistant.conversations.citations(conversation.id)
        self._show(conversation, messages, counts, citations)

    def _show(
        self,
        conversation: Conversation,
        messages: list[Message],
        counts: dict[int, int],
        citations: dict[int, tuple[Citation, ...]],
        untitled: str = NEW_CONVERSATION_TITLE,
    ) -> None:
        self.window.show_conversation(
            conversation.id,
            conversation.title or untitled,
            messages,
            counts,
            citations,
            temporary=conversation.temporary,
        )
        self.chat.show(conversation.id)

    def show_new_chat(self, *, temporary: bool = False, project_id: int | None = None) -> None:
        title = TEMPORARY_CONVERSATION_TITLE if temporary else NEW_CONVERSATION_TITLE
        project = next((p for p in self.model.projects() if p.id == project_id), None)
        if project is not None and not temporary:
            title = f"{NEW_CONVERSATION_TITLE} in {project.name}"
        self.window.show_conversation(None, title, [], temporary=temporary)
        self.chat.show(None, temporary=temporary, project_id=None if temporary else project_id)

    def new_chat(self, *, project_id: int | None = None) -> None:
        """A new chat, in ``project_id`` (None: outside any project) once it is sent."""
        self.show_new_chat(project_id=project_id)
        self.window.focus_composer()

    def new_temporary_chat(self) -> None:
        self.show_new_chat(temporary=True)
        self.window.focus_composer()

    def show_started(self, conversation: Conversation) -> None:
        """The new chat on screen was just started on disk as ``conversation`` (by its
        first message, which the chat controller sent): it is shown as that conversation,
        still empty (its messages arrive as news) and selected in the list."""
        untitled = TEMPORARY_CONVERSATION_TITLE if conversation.temporary else None
        self._show(conversation, [], {}, {}, untitled or NEW_CONVERSATION_TITLE)

    @in_background(LOAD_TASK)
    async def open(self, assistant: Assistant, conversation_id: int) -> None:
        await self.show(assistant, await assistant.conversations.get(conversation_id))

    # -- pin, rename, delete, export -------------------------------------------------

    @in_background("conversation-pin")
    async def set_pinned(self, assistant: Assistant, conversation_id: int, pinned: bool) -> None:
        # The list follows the CONVERSATION_CHANGED news (the pinned chat moves up).
        service = assistant.conversations
        await (service.pin if pinned else service.unpin)(conversation_id)

    def ask_local_only(self, conversation_id: int, marked: bool) -> None:
        """Mark at once; unmark after the user says yes: what the chat holds may then
        reach a model that runs elsewhere."""
        if marked:
            self.set_local_only(conversation_id, True)
            return
        row = self.model.row_of(conversation_id)
        title = self.model.conversation_at(row).title if row is not None else ""
        self.question = ask_before(
            self.window,
            UNMARK_TITLE,
            unmark_question("chat", title or NEW_CONVERSATION_TITLE),
            UNMARK_ACTION,
            lambda: self.set_local_only(conversation_id, False),
        )

    @in_background("conversation-local-only")
    async def set_local_only(
        self, assistant: Assistant, conversation_id: int, marked: bool
    ) -> None:
        # The list follows the CONVERSATION_CHANGED news (the row is marked).
        await assistant.conversations.set_local_only(conversation_id, marked)
        if marked:
            self.say("Local only: this chat never reaches a model that runs elsewhere.")
        else:
            self.say("This chat is no longer local only.")

    def ask_rename(self, conversation_id: int) -> None:
        dialog = self.window.dialogs.rename_conversation(conversation_id)
        if dialog is not None:
            dialog.rename_requested.connect(self.rename)

    def ask_delete(self, conversation_id: int) -> None:
        dialog = self.window.dialogs.delete_conversation(conversation_id)
        if dialog is not None:
            dialog.delete_confirmed.connect(self.delete)

    def ask_export(self, conversation_id: int) -> None:
        self.window.dialogs.export_conversation(conversation_id, self.export)

    @in_background("conversation-rename")
    async def rename(self, assistant: Assistant, conversation_id: int, title: str) -> None:
        # The list and the header follow the CONVERSATION_CHANGED news.
        await assistant.conversations.rename(conversation_id, title)

    @in_background("conversation-delete")
    async def delete(self, assistant: Assistant, conversation_id: int) -> None:
        if self.chat.turn_conversation_id in (conversation_id, None):
            # Its answer is being written: stop it (what was written is saved, its
            # jobs queued) before the messages go, so nothing writes to them after.
            await self.services.stop_turn()
        await assistant.conversations.delete(conversation_id)
        if conversation_id == self.chat.conversation_id:
            self.show_new_chat()
        self.say("Conversation deleted. What ACAI learned from it stays in your memories.")

    @in_background("conversation-export")
    async def export(
        self, assistant: Assistant, conversation_id: int, path: str, file_format: str
    ) -> None:
        count = await assistant.conversations.export(conversation_id, path, file_format)
        self.say(f"Exported {count} messages to {path}")

    # -- search ----------------------------------------------------------------------

    def open_search(self) -> None:
        dialog, created = self.window.dialogs.search()
        if created:
            dialog.search_requested.connect(self.search)
            dialog.result_chosen.connect(self._open_search_result)

    def _open_search_result(self, conversation_id: int, message_id: int | None) -> None:
        # A message opens where it is, highlighted (as a recalled one does).
        if message_id is None:
            self.open(conversation_id)
        else:
            self.open_at_message(conversation_id, message_id)

    @in_background(LOAD_TASK)
    async def open_at_message(
        self, assistant: Assistant, conversation_id: int, message_id: int
    ) -> None:
        """Open a conversation at one of its messages, highlighted (a recalled message,
        a search result, a memory's source)."""
        await self.show(assistant, await assistant.conversations.get(conversation_id))
        if not self.window.chat_view.show_message(message_id):
            self.say("That message is no longer in its conversation.")

    @in_background(SEARCH_TASK)
    async def search(self, assistant: Assistant, query: str) -> None:
        hits = await assistant.conversations.search(query)
        self.window.dialogs.show_search_results(query, hits)
