"""The first step of opening a profile: its database, under the profile's lock.

:func:`acai_desktop.core.assistant.open_assistant` starts here, always: the lock is
taken before anything reads the settings or touches a row (an answer left streaming by
a crash is marked stopped only by the one process that holds the profile). The window
opens this part first and shows the user's conversations and the first page of
memories at once; ``open_assistant(profile, data=...)`` then builds the rest on the
same database while the window is already usable. This module imports only the light
part of the core, so it is ready right after the first paint.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.core.memory.listing import PanelPages
from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_opening import open_profile_store
from acai_desktop.core.records.conversations import Conversation, Message
from acai_desktop.core.records.projects import Project
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.instructions import profile_instructions
from acai_desktop.core.store.interface import MemoryStore
from acai_desktop.core.store.projects import list_projects
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns import unsaved_answers
from acai_desktop.core.turns.citations import Citation


@dataclass
class ProfileData(PanelPages):
    profile: Profile
    store: MemoryStore
    lock: ProfileLock
    conversations: ConversationRepository
    provenance: ProvenanceRepository

    async def list_conversations(self) -> list[Conversation]:
        """Every conversation, most recently active first (the window's list)."""
        return await self.conversations.list()

    async def messages_with_sources(
        self, conversation_id: int
    ) -> tuple[list[Message], dict[int, int]]:
        """A conversation's messages and its answers' source counts, in one query."""
        return await self.conversations.messages_with_sources(conversation_id)

    async def citations(self, conversation_id: int) -> dict[int, tuple[Citation, ...]]:
        """The numbered sources of a conversation's answers (core.turns.citations)."""
        return await self.provenance.citations_in_conversation(conversation_id)

    async def list_projects(self) -> list[Project]:
        """Every project, by name (the list's groups)."""
        return await self.store.run(list_projects)

    async def profile_instructions(self) -> CustomInstructions:
        """The user's custom instructions for every chat (the memory panel lists them)."""
        return await self.store.run(profile_instructions)

    async def aclose(self) -> None:
        """Close the database and let the profile go (when no assistant took them)."""
        try:
            await self.store.close()
        finally:
            self.lock.release()


async def open_profile_data(profile: Profile, *, update_schema: bool = False) -> ProfileData:
    """Take the profile's lock and open its database (StoreError if either fails);
    ``update_schema``: the user agreed to update an older schema on the server."""
    profile.ensure()
    lock = ProfileLock(profile.data_dir).acquire()
    try:
        store = await open_profile_store(profile, update_schema=update_schema)
    except BaseException:
        lock.release()
        raise
    try:
        conversations = ConversationRepository(store)
        # An answer cut off by a crash or kill shows as stopped, not streaming forever;
        # one this process lost the server's connection for keeps its words and says so.
        lost = unsaved_answers.held(store.path)
        await conversations.recover_interrupted_answers(lost)
        unsaved_answers.saved(store.path, lost)
    except BaseException:
        with contextlib.suppress(Exception):
            await store.close()
        lock.release()
        raise
    return ProfileData(profile, store, lock, conversations, ProvenanceRepository(store))
