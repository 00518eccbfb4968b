"""Projects as the window and the command line use them (issue 26): create, rename and
delete one, move a chat into or out of one, promote a memory to everywhere or keep it
to its project, and a project's custom instructions and default model.

What a project's chat sees is decided where memory is searched (a
:class:`~acai_desktop.core.records.projects.ProjectScope`, see ``HybridRetriever.search``); this
service only changes which project things belong to, and announces it:
``ProjectsChanged`` with every project, ``ConversationChanged`` for a chat that moved,
and the memories it changed through the :class:`MemoryService` (index, then
``MemoryChanged``/``MemoryRemoved``).
"""

from __future__ import annotations

from acai_desktop.core.conversations.custom_instructions import (
    CustomInstructions,
    clean_instructions,
)
from acai_desktop.core.conversations.service import ConversationService
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import ConversationChanged, EventBus, ProjectsChanged
from acai_desktop.core.memory.reader import memory_id_of
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus
from acai_desktop.core.records.projects import Project
from acai_desktop.core.store import local_only as local_only_rows
from acai_desktop.core.store import projects as rows
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memory_changes import MemoryChange
from acai_desktop.core.store.projects import DeletedProject, ProjectContents


class ProjectService:
    def __init__(
        self,
        store: Store,
        memories: MemoryService,
        events: EventBus,
        conversations: ConversationService,
        documents: DocumentService,
    ) -> None:
        self._store = store
        self._memories = memories
        self._events = events
        self._conversations = conversations
        self._documents = documents

    # -- reading ---------------------------------------------------------------------

    async def list(self) -> list[Project]:
        """Every project, by name."""
        return await self._store.run(rows.list_projects)

    async def get(self, project_id: int) -> Project:
        return await self._store.run(rows.fetch_project, project_id)

    async def contents(self, project_id: int) -> ProjectContents:
        """How many chats, memories and documents it holds (asked before deleting)."""
        return await self._store.run(rows.project_contents, project_id)

    # -- changing ----------------------------------------------------------------------

    async def create(self, name: str) -> Project:
        """Raises InvalidInputError (nothing written) for an empty or too long name."""
        project = await self._store.run(rows.create_project, name)
        await self._announce()
        return project

    async def rename(self, project_id: int, name: str) -> Project:
        project = await self._store.run(rows.rename_project, project_id, name)
        await self._announce()
        return project

    async def delete(self, project_id: int, *, with_contents: bool = False) -> DeletedProject:
        """Delete the project. Without ``with_contents`` its chats, memories and
        documents stay, outside any project: every chat sees them from now on. With it,
        its chats are deleted, its documents removed from ACAI (the files stay on disk)
        and its memories forgotten (each can be restored from its history), so nothing
        learned in the project spreads anywhere."""
        if with_contents:
            await self.get(project_id)  # NotFoundError before anything is deleted
            for conversation in await self._conversations.list():
                if conversation.project_id == project_id:
                    await self._conversations.delete(conversation.id)
            for document in await self._documents.list():
                if document.project_id == project_id:
                    await self._documents.remove(document.id)
        deleted = await self._store.run(rows.delete_project, project_id, forget=with_contents)
        forgotten = [m for m in deleted.memories if m.status == MemoryStatus.FORGOTTEN]
        others = [m for m in deleted.memories if m.status != MemoryStatus.FORGOTTEN]
        # Still current ones changed only in who sees them: their vectors stand.
        await self._memories.publish(MemoryChange(removed=forgotten))
        await self._memories.publish(MemoryChange(changed=others, ranking_only=True))
        for conversation in deleted.chats:
            self._events.emit(ConversationChanged(conversation))
        await self._announce()
        return deleted

    async def move_conversation(self, conversation_id: int, project_id: int | None) -> Conversation:
        """Put a chat in a project (None: outside any); the memories learned in it that
        were its old project's go with it."""
        moved = await self._store.run(rows.move_conversation, conversation_id, project_id)
        if moved.memories:
            await self._memories.publish(MemoryChange(changed=moved.memories, ranking_only=True))
        self._events.emit(ConversationChanged(moved.conversation))
        return moved.conversation

    async def promote(self, memory_id: int) -> MemoryItem:
        """Make a project's memory visible everywhere (recorded in its history)."""
        return await self._set_memory_project(memory_id_of(memory_id), None)

    async def demote(self, memory_id: int, project_id: int | None = None) -> MemoryItem:
        """Keep a memory to ``project_id`` (default: the project of the chat it was
        learned in) again; recorded in its history. InvalidInputError when it was not
        learned in a project and none is named."""
        memory_id = memory_id_of(memory_id)
        if project_id is None:
            project_id = await self._store.run(rows.home_project_of, memory_id)
            if project_id is None:
                raise InvalidInputError(
                    "This memory was not learned in a project's chat; it stays everywhere."
                )
        return await self._set_memory_project(memory_id, project_id)

    async def _set_memory_project(self, memory_id: int, project_id: int | None) -> MemoryItem:
        item = await self._store.run(rows.set_memory_project, memory_id, project_id)
        # Only who sees it changed: its vector and text stand.
        await self._memories.publish(MemoryChange(result=item, changed=[item], ranking_only=True))
        return item

    # -- a project's settings --------------------------------------------------------

    async def instructions(self, project_id: int) -> CustomInstructions | None:
        """The project's custom instructions (None: its chats follow the profile's)."""
        return await self._store.run(rows.project_instructions, project_id)

    async def set_instructions(
        self, project_id: int, respond: str, about: str
    ) -> CustomInstructions:
        """Every chat of the project carries these instead of the profile's (a chat's
        own override still wins). Raises InvalidInputError, nothing written."""
        instructions = clean_instructions(respond, about)
        await self._store.run(rows.save_project_instructions, project_id, instructions)
        await self._announce()  # the project changed (its updated_at)
        return instructions

    async def use_profile_instructions(self, project_id: int) -> None:
        await self._store.run(rows.save_project_instructions, project_id, None)
        await self._announce()

    async def set_default_model(self, project_id: int, model: str | None) -> Project:
        """The chat model the project's chats use unless they set their own (None or
        "": the profile's)."""
        model = (model or "").strip() or None
        if model is not None and (len(model) > 200 or any(c < " " for c in model)):
            raise InvalidInputError("A model name is one line of at most 200 characters.")
        project = await self._store.run(rows.set_default_model, project_id, model)
        await self._announce()
        return project

    async def set_local_only(self, project_id: int, local_only: bool) -> Project:
        """Keep the project's chats, memories and documents off remote models
        (core/turns/privacy.py), or let them reach them again."""
        project = await self._store.run(
            local_only_rows.set_project_local_only, project_id, local_only
        )
        await self._announce()
        return project

    async def default_model_for_chat(self, conversation_id: int) -> str | None:
        """The model a chat's project names for it (None: the chat is outside any
        project, or its project names none: the profile's chat model). The layer
        between a chat's own model and the profile's."""
        return await self._store.run(rows.default_model_of_chat, conversation_id)

    async def _announce(self) -> None:
        self._events.emit(ProjectsChanged(tuple(await self.list())))
