"""The chat's header: which model the chat on screen runs with (the chip: its name, and
whether the server has it), and the chat's own model settings (⚙ opens them).

The chip follows the chat shown: a chat with its own model shows that model, checked
against what the server listed at the last probe (the same check as the profile's
model, so an unknown name reads "wrong model name", with the banner saying what to do).
A new chat, not on disk yet, keeps its choices in :class:`CurrentChat` until its first
message creates it. The prompt budget the composer warns about is the chat's too.

The ⚙ also says whether the chat is local only (issue 42, item 4): a new chat's choice
waits in :class:`CurrentChat` and goes with its first message, so that message never
reaches a model that runs elsewhere; an existing chat's box marks it, or unmarks it after
the conversations controller's question, as its sidebar menu does. The header's *Local
only* badge follows the conversation list (a chat marked from its menu, its project's
mark) and the new chat's choice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acai_desktop.core.conversations.chat_settings import (
    ChatSettings,
    EffectiveSettings,
    SettingScope,
)
from acai_desktop.ui.controllers.base import Controller, Services, in_background
from acai_desktop.ui.local_only_text import local_only_tip

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.models.model_status import ModelStatus
    from acai_desktop.ui.controllers.conversations import ConversationsController
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.main_window import MainWindow

#: Reading the shown chat's settings for the header: a newer chat shown wins.
HEADER_TASK = "chat-header"
SAVED_TEXT = "This chat's model settings are saved; the next answer uses them."
SAVED_NEW_CHAT_TEXT = "The new chat will use these model settings."
SAVED_LOCAL_ONLY_NEW_CHAT_TEXT = (
    "The new chat will be local only: its messages never reach a model that runs elsewhere."
)


def settings_tip(settings: EffectiveSettings) -> str:
    """The ⚙'s tooltip: what the chat runs with, and which of it is its own."""

    def whose(name: str) -> str:
        scope = settings.scope_of(name)
        return "this chat's own" if scope == SettingScope.CHAT else f"from {scope.value}"

    temperature = (
        "the server's default" if settings.temperature is None else f"{settings.temperature:g}"
    )
    budget = settings.budget
    lines = [
        "This chat's model, temperature and context budget (click to change):",
        f"Model: {settings.model or 'none'} ({whose('model')})",
        f"Temperature: {temperature} ({whose('temperature')})",
        f"Context budget ({whose('context_budget_tokens')}): {budget.describe()}",
    ]
    if note := budget.note():
        lines.append(note)
    return "\n".join(lines)


class ChatHeaderController(Controller):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: CurrentChat,
        conversations: ConversationsController,
    ) -> None:
        super().__init__(services)
        self.window, self.chat = window, chat
        self.conversations = conversations
        #: The server's answer to the last probe (None: not asked yet, or no model).
        self.probe: ModelStatus | None = None
        window.chat_settings_button.clicked.connect(self.open_dialog)
        chat.shown.connect(self._on_chat_shown)
        # A project's default model may be the shown chat's.
        window.events.projects_changed.connect(self._on_projects_changed)
        # Local only follows the list: a chat marked from its menu, a project's mark.
        listed = window.conversations_model
        for signal in (listed.dataChanged, listed.modelReset, listed.rowsInserted):
            signal.connect(self._show_local_only)

    def set_probe(self, status: ModelStatus | None) -> None:
        """What the server said to the probe (its listing included): show the shown
        chat's model with it."""
        self.probe = status
        self.refresh()

    def _on_chat_shown(self, _conversation_id: int | None) -> None:
        self.refresh()
        self._show_local_only()

    def _on_projects_changed(self, _projects: list) -> None:
        self.refresh()

    def refresh(self) -> None:
        assistant = self.services.assistant
        if assistant is not None:
            self.services.run(self._refresh(assistant), HEADER_TASK, key=HEADER_TASK)

    async def _refresh(self, assistant: Assistant) -> None:
        self._show(assistant, await self._in_effect(assistant))

    async def _in_effect(self, assistant: Assistant) -> EffectiveSettings:
        if self.chat.conversation_id is None:  # a new chat: its choices wait in CurrentChat
            return await assistant.chat_settings.for_new_chat(
                self.chat.new_chat_settings, self.chat.new_chat_project_id
            )
        return await assistant.chat_settings.in_effect(self.chat.conversation_id)

    def _show(self, assistant: Assistant, settings: EffectiveSettings) -> None:
        own = any(scope != SettingScope.PROFILE for scope in settings.scopes.values())
        self.window.show_chat_settings(own, settings_tip(settings))
        self.window.set_prompt_budget(settings.context_budget_tokens)
        if assistant.model_problem is None and self.probe is not None:
            status = assistant.chat_model_status(self.probe, settings)
            self.window.show_model_status(assistant.model_name_for(settings), status)

    # -- local only -------------------------------------------------------------------

    def _local_only_marks(self) -> tuple[bool, bool]:
        """The chat on screen's own local-only mark (a new chat's: its ⚙'s choice), and
        whether its project is local only, as the conversation list has them."""
        listed = self.window.conversations_model
        if self.chat.conversation_id is None:
            own, project_id = self.chat.new_chat_local_only, self.chat.new_chat_project_id
        else:
            row = listed.row_of(self.chat.conversation_id)
            if row is None:
                return False, False
            conversation = listed.conversation_at(row)
            own, project_id = conversation.local_only, conversation.project_id
        project = listed.project(project_id)
        return own, project is not None and project.local_only

    def _show_local_only(self, *_changed) -> None:
        own, by_project = self._local_only_marks()
        why = "own" if own else "project" if by_project else None
        badge = self.window.local_only_badge
        badge.setToolTip(local_only_tip(why))
        badge.setVisible(why is not None)

    # -- the dialog ------------------------------------------------------------------

    @in_background("chat-settings")
    async def open_dialog(self, assistant: Assistant) -> None:
        conversation_id = self.chat.conversation_id
        if conversation_id is None:
            own = self.chat.new_chat_settings or ChatSettings()
        else:
            own = await assistant.chat_settings.for_chat(conversation_id)
        listed = self.probe.models if self.probe is not None else ()
        if not assistant.names_matter():
            listed = ()  # one model loaded, which answers to any name
        service = assistant.chat_settings
        model = (await self._in_effect(assistant)).model
        from_settings, automatic = await service.budgets_for(model)
        marked, by_project = self._local_only_marks()
        dialog = self.window.dialogs.chat_settings(
            service.profile,
            own,
            listed,
            from_settings=from_settings,
            automatic=automatic,
            # The project's mark shows first: the box can't take it off.
            local_only="project" if by_project else "own" if marked else None,
        )
        dialog.save_requested.connect(
            # The chat it was opened on, and its mark then: only a change is applied.
            lambda settings, local_only: self.save(
                conversation_id, settings, None if local_only == marked else local_only
            )
        )

    @in_background("chat-settings-save")
    async def save(
        self,
        assistant: Assistant,
        conversation_id: int | None,
        settings: ChatSettings,
        local_only: bool | None = None,
    ) -> None:
        """``local_only``: the chat's own mark as changed in the dialog (None: as it was)."""
        if conversation_id is None:
            if self.chat.conversation_id is None:
                self.chat.new_chat_settings = None if settings.empty else settings
                if local_only is not None:
                    self.chat.new_chat_local_only = local_only
                    self._show_local_only()
                self.say(
                    SAVED_LOCAL_ONLY_NEW_CHAT_TEXT
                    if self.chat.new_chat_local_only
                    else SAVED_NEW_CHAT_TEXT
                )
        else:
            await assistant.chat_settings.set_for_chat(
                conversation_id,
                model=settings.model,
                temperature=settings.temperature,
                context_budget_tokens=settings.context_budget_tokens,
                routing=settings.routing,
            )
            self.say(SAVED_TEXT)
            if local_only is not None:  # marked at once, unmarked after a question
                self.conversations.ask_local_only(conversation_id, local_only)
        self.refresh()
