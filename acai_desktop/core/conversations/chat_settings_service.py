"""A chat's model settings: read and write the chat's own, and say what its turns use.

:meth:`ChatSettingsService.in_effect` is the one place a turn, a regenerated answer and
the title job learn which model, temperature and context budget a chat runs with (the
layers are resolved by :func:`core.conversations.chat_settings.effective_settings`; an automatic
budget follows the chat's model's context window, asked of its server once:
``core.models.window_probe``). Background learning does not ask: it keeps the profile's
models.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from acai_desktop.core.conversations.chat_settings import (
    AUTOMATIC,
    ChatSettings,
    EffectiveSettings,
    ProfileChatDefaults,
    clean_chat_settings,
    effective_model,
    effective_settings,
)
from acai_desktop.core.models.context_window import ContextWindow, window_from_table
from acai_desktop.core.models.prompt_budget import PromptBudget
from acai_desktop.core.store import chat_settings as rows
from acai_desktop.core.store import projects
from acai_desktop.core.store.database import Store


class Windows(Protocol):
    """Where a model's context window is known (core.models.window_probe.ContextWindows)."""

    async def window_for(self, model: str | None) -> ContextWindow | None: ...


class TableWindows:
    """The known models' table alone (no server to ask)."""

    async def window_for(self, model: str | None) -> ContextWindow | None:
        return window_from_table(model)


class ChatSettingsService:
    def __init__(
        self, store: Store, profile: ProfileChatDefaults, windows: Windows | None = None
    ) -> None:
        self._store = store
        #: The profile's model settings' part (what an unset choice falls back to).
        self.profile = profile
        #: Each model's context window, which an automatic budget follows.
        self.windows: Windows = windows or TableWindows()

    async def for_chat(self, conversation_id: int) -> ChatSettings:
        """The chat's own choices (all None: it follows the profile's)."""
        return await self._store.run(rows.chat_settings, conversation_id)

    async def set_for_chat(
        self,
        conversation_id: int,
        *,
        model: str | None = None,
        temperature: float | None = None,
        context_budget_tokens: int | None = None,
        routing: str | None = None,
    ) -> ChatSettings:
        """Replace the chat's own choices (None: the profile's). Raises
        InvalidInputError, with nothing written, for a value that can't be used."""
        settings = clean_chat_settings(model, temperature, context_budget_tokens, routing)
        await self._store.run(rows.save_chat_settings, conversation_id, settings)
        return settings

    async def in_effect(self, conversation_id: int | None) -> EffectiveSettings:
        """What the chat's turns run with (None: a new chat, not on disk yet): its own
        choices, else its project's default model, else the profile's."""
        own = await self.for_chat(conversation_id) if conversation_id is not None else None
        return await self._resolved(own, await self.project_layer(conversation_id))

    async def for_new_chat(
        self, own: ChatSettings | None, project_id: int | None = None
    ) -> EffectiveSettings:
        """What a new chat (not on disk yet) will run with: ``own``, the choices made in
        its header, over ``project_id``'s default and the profile's."""
        return await self._resolved(own, await self.project_layer(None, project_id))

    async def budgets_for(self, model: str | None) -> tuple[PromptBudget, PromptBudget]:
        """For a chat running ``model``: the budget Settings gives it, and what an
        automatic one comes to (the chat's ⚙ dialog shows both)."""
        window = await self.windows.window_for(model)
        plain = ChatSettings(model=model)
        automatic = replace(plain, context_budget_tokens=AUTOMATIC)
        return (
            effective_settings(self.profile, plain, window=window).budget,
            effective_settings(self.profile, automatic, window=window).budget,
        )

    async def _resolved(
        self, own: ChatSettings | None, project: ChatSettings | None
    ) -> EffectiveSettings:
        window = await self.windows.window_for(effective_model(self.profile, own, project=project))
        return effective_settings(self.profile, own, project=project, window=window)

    async def project_layer(
        self, conversation_id: int | None, project_id: int | None = None
    ) -> ChatSettings | None:
        """The layer a chat's project adds: its default model (None: the chat is
        outside any project, or the project names none). ``project_id``: the project
        a new chat (``conversation_id`` None) will start in."""
        if conversation_id is not None:
            model = await self._store.run(projects.default_model_of_chat, conversation_id)
        elif project_id is not None:
            model = (await self._store.run(projects.fetch_project, project_id)).default_model
        else:
            model = None
        return ChatSettings(model=model) if model else None
