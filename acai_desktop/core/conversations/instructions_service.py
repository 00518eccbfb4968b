"""Custom instructions: read and write them (the user's edits only), then the news.

Only the window and the command line call the writes: no processor holds this service,
so the assistant never changes the user's instructions. ``InstructionsChanged`` says
whose changed (``conversation_id`` None: the profile's), so the memory panel and an
open chat follow.
"""

from __future__ import annotations

from acai_desktop.core.conversations.custom_instructions import (
    CustomInstructions,
    InstructionsScope,
    UsedInstructions,
    clean_instructions,
)
from acai_desktop.core.events import EventBus, InstructionsChanged
from acai_desktop.core.store import instructions as rows
from acai_desktop.core.store.database import Store


class InstructionsService:
    def __init__(self, store: Store, events: EventBus) -> None:
        self._store = store
        self._events = events

    async def profile(self) -> CustomInstructions:
        return await self._store.run(rows.profile_instructions)

    async def set_profile(self, respond: str, about: str) -> CustomInstructions:
        """Raises InvalidInputError (nothing written) for text that can't be kept."""
        instructions = clean_instructions(respond, about)
        await self._store.run(rows.save_profile_instructions, instructions)
        self._events.emit(InstructionsChanged(None))
        return instructions

    async def for_new_chat(self) -> UsedInstructions | None:
        """What a new chat outside any project carries: the profile's (None: empty)."""
        mine = await self.profile()
        return None if mine.empty else UsedInstructions(mine, InstructionsScope.PROFILE)

    async def for_chat(self, conversation_id: int) -> CustomInstructions | None:
        """The chat's override (None: it follows the profile's)."""
        return await self._store.run(rows.chat_instructions, conversation_id)

    async def set_for_chat(
        self, conversation_id: int, respond: str, about: str
    ) -> CustomInstructions:
        instructions = clean_instructions(respond, about)
        await self._store.run(rows.save_chat_instructions, conversation_id, instructions)
        self._events.emit(InstructionsChanged(conversation_id))
        return instructions

    async def use_profile_for_chat(self, conversation_id: int) -> None:
        """Drop the chat's override: it follows the profile's instructions again."""
        await self._store.run(rows.save_chat_instructions, conversation_id, None)
        self._events.emit(InstructionsChanged(conversation_id))

    async def in_effect(self, conversation_id: int) -> UsedInstructions | None:
        """What a turn in the chat carries (its override, else the profile's)."""
        return await self._store.run(rows.instructions_for_chat, conversation_id)
