"""Projects: create one (the sidebar's *+ Project*), start a chat in one, move a chat
into or out of one, a project's name, default model and instructions, marking it local
only (unmarking after a question), and deleting one (after a question that says what
happens to its chats, memories and documents). The
sidebar's groups and the memory panel's project choices follow the core's
``ProjectsChanged`` news (wired by the window)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.ui.controllers.base import Controller, Services, in_background
from acai_desktop.ui.local_only_text import UNMARK_ACTION, UNMARK_TITLE, unmark_question
from acai_desktop.ui.widgets.dialogs import ask_before
from acai_desktop.ui.widgets.project_dialogs import ProjectDialog, ask_delete_project

#: The instructions dialog's box, for a project (a chat's own still win in that chat).
USE_PROFILE_IN_PROJECT_TEXT = "Use my instructions from Settings in this project's chats"

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.controllers.conversations import ConversationsController
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.main_window import MainWindow


class ProjectsController(Controller):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        conversations: ConversationsController,
        chat: CurrentChat,
    ) -> None:
        super().__init__(services)
        self.window = window
        self.conversations = conversations
        self.chat = chat
        #: The dialog or question open last (tests answer it).
        self.dialog = None
        window.new_project_button.clicked.connect(self.ask_new)
        chats = window.conversation_list
        chats.new_chat_in_project_requested.connect(self.new_chat_in)
        chats.move_to_project_requested.connect(self.move)
        chats.rename_project_requested.connect(self.ask_edit)
        chats.delete_project_requested.connect(self.ask_delete)
        chats.project_instructions_requested.connect(self.open_instructions)
        chats.project_local_only_requested.connect(self.ask_local_only)

    # -- create, edit -----------------------------------------------------------------

    def ask_new(self) -> ProjectDialog:
        dialog = self.dialog = ProjectDialog(None, parent=self.window)
        dialog.save_requested.connect(self.save)
        dialog.open()
        return dialog

    def ask_edit(self, project_id: int) -> ProjectDialog | None:
        project = self._project(project_id)
        if project is None:
            return None
        dialog = self.dialog = ProjectDialog(
            project_id,
            project.name,
            project.default_model,
            self.window,
            local_only=project.local_only,
        )
        dialog.save_requested.connect(self.save)
        dialog.open()
        return dialog

    @in_background("project-save")
    async def save(
        self,
        assistant: Assistant,
        project_id: int | None,
        name: str,
        model: str,
        local_only: bool = False,
    ) -> None:
        projects = assistant.projects
        if project_id is None:
            project = await projects.create(name)
            if model:
                await projects.set_default_model(project.id, model)
            if local_only:
                await projects.set_local_only(project.id, True)
            # A new project opens on a new chat in it, ready to type.
            self.conversations.new_chat(project_id=project.id)
            self.say(f"Project {project.name} created: its chats share their own memory.")
            return
        was_local_only = (project := self._project(project_id)) is not None and project.local_only
        await projects.rename(project_id, name)
        await projects.set_default_model(project_id, model or None)
        self.say(f"Project {name} saved.")
        if local_only != was_local_only:
            self.ask_local_only(project_id, local_only)

    # -- local only -------------------------------------------------------------------

    def ask_local_only(self, project_id: int, marked: bool) -> None:
        """Mark at once; unmark after the user says yes: its chats, memories and
        documents may then reach a model that runs elsewhere."""
        if marked:
            self.set_local_only(project_id, True)
            return
        project = self._project(project_id)
        self.dialog = ask_before(
            self.window,
            UNMARK_TITLE,
            unmark_question("project", project.name if project else ""),
            UNMARK_ACTION,
            lambda: self.set_local_only(project_id, False),
        )

    @in_background("project-local-only")
    async def set_local_only(self, assistant: Assistant, project_id: int, marked: bool) -> None:
        # The sidebar's groups follow the PROJECTS_CHANGED news.
        project = await assistant.projects.set_local_only(project_id, marked)
        if marked:
            self.say(
                f"Project {project.name} is local only: its chats, memories and documents "
                "never reach a model that runs elsewhere."
            )
        else:
            self.say(f"Project {project.name} is no longer local only.")

    def new_chat_in(self, project_id: int | None) -> None:
        self.conversations.new_chat(project_id=project_id)

    @in_background("project-move")
    async def move(
        self, assistant: Assistant, conversation_id: int, project_id: int | None
    ) -> None:
        await assistant.projects.move_conversation(conversation_id, project_id)
        if project_id is None:
            self.say("Chat moved out of its project; what was learned in it is seen everywhere.")
            return
        project = self._project(project_id)
        name = project.name if project else "the project"
        self.say(f"Chat moved to {name}; what was learned in it is {name}'s now.")

    # -- instructions ---------------------------------------------------------------

    @in_background("project-instructions")
    async def open_instructions(self, assistant: Assistant, project_id: int) -> None:
        profile = await assistant.instructions.profile()
        own = await assistant.projects.instructions(project_id)
        dialog = self.dialog = self.window.dialogs.chat_instructions(project_id, profile, own)
        project = self._project(project_id)
        dialog.setWindowTitle(f"Instructions for {project.name if project else 'the project'}")
        dialog.use_profile.setText(USE_PROFILE_IN_PROJECT_TEXT)
        dialog.save_requested.connect(self.save_instructions)

    @in_background("project-instructions-save")
    async def save_instructions(
        self, assistant: Assistant, project_id: int, own: CustomInstructions | None
    ) -> None:
        if own is None:
            await assistant.projects.use_profile_instructions(project_id)
        else:
            await assistant.projects.set_instructions(project_id, own.respond, own.about)
        self.say("The project's instructions are saved; its chats follow them.")

    # -- delete ---------------------------------------------------------------------

    @in_background("project-delete-ask")
    async def ask_delete(self, assistant: Assistant, project_id: int) -> None:
        contents = await assistant.projects.contents(project_id)
        project = self._project(project_id)
        self.dialog = ask_delete_project(
            self.window,
            project.name if project else "",
            (contents.chats, contents.memories, contents.documents),
            lambda: self.delete(project_id, False),
            lambda: self.delete(project_id, True),
        )

    @in_background("project-delete")
    async def delete(self, assistant: Assistant, project_id: int, with_contents: bool) -> None:
        chats = {
            c.id
            for c in self.window.conversations_model.conversations()
            if c.project_id == project_id
        }
        if with_contents and self.chat.turn_conversation_id in chats:
            # Its answer is being written: stop it before its messages go.
            await self.services.stop_turn()
        deleted = await assistant.projects.delete(project_id, with_contents=with_contents)
        if not with_contents:
            self.say("Project deleted; its chats, memories and documents are seen everywhere.")
            return
        if self.chat.conversation_id in chats:
            self.conversations.show_new_chat()
        forgotten = len(deleted.memories)
        self.say(f"Project deleted with its {len(chats)} chats; {forgotten} memories forgotten.")

    def _project(self, project_id: int):
        return next(
            (p for p in self.window.conversations_model.projects() if p.id == project_id), None
        )
