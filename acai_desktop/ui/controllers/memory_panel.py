"""Memories: edit, pin, mark local only, forget (with Undo), restore, resolve a conflict,
show the details, write a note; accept or dismiss a suggested fact; and retry the
background jobs that learn them."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

import shiboken6

from acai_desktop.core.errors import AcaiError, InvalidInputError, NotFoundError
from acai_desktop.core.memory.query import content_terms
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus, Origin
from acai_desktop.ui.controllers.base import Controller, Services, in_background, short

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.events import ForgottenOnRequest
    from acai_desktop.core.memory.listing import PanelQuery
    from acai_desktop.ui.controllers.conversations import ConversationsController
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.dialogs import NoteDialog
    from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog


class MemoryPanelController(Controller):
    def __init__(
        self, window: MainWindow, services: Services, conversations: ConversationsController
    ) -> None:
        super().__init__(services)
        self.window = window
        #: Opens a memory's source message in its conversation.
        self.conversations = conversations
        self.model = window.memories_model
        panel = self.panel = window.memory_panel
        panel.edit_requested.connect(self.ask_edit)
        panel.add_note_requested.connect(self.ask_note)
        panel.pin_requested.connect(self.pin)
        panel.local_only_requested.connect(self.set_local_only)
        panel.forget_requested.connect(self.forget)
        panel.details_requested.connect(self.show_details)
        panel.resolve_requested.connect(self.resolve)
        panel.search_requested.connect(self.search_by_meaning)
        panel.suggestion_accept_requested.connect(self.accept_suggestion)
        panel.suggestion_dismiss_requested.connect(self.dismiss_suggestion)
        panel.promote_requested.connect(self.promote)
        panel.demote_requested.connect(self.demote)
        window.undo.restore_requested.connect(self.restore)
        window.undo.forget_requested.connect(self.forget)
        window.job_status.retry_requested.connect(self.retry_jobs)
        window.events.suggestions_changed.connect(self.refresh_suggestions)
        window.events.memory_learned.connect(self.announce_learned)
        window.events.forgotten_on_request.connect(self.announce_forgotten)

    def ask_edit(self, memory_id: int) -> None:
        dialog = self.window.dialogs.edit_memory(memory_id)
        if dialog is not None:
            dialog.save_requested.connect(self.save)

    def ask_note(self) -> None:
        dialog, created = self.window.dialogs.add_note()
        if created:
            dialog.save_requested.connect(self.save_note)

    @in_background("memory-edit")
    async def save(self, assistant: Assistant, memory_id: int, text: str) -> None:
        await assistant.memories.edit(memory_id, text)
        self.say("Saved. ACAI will keep this memory as you wrote it.")

    @in_background("memory-pin")
    async def pin(self, assistant: Assistant, memory_id: int, pinned: bool) -> None:
        if pinned:
            await assistant.memories.pin(memory_id)
            self.say("Pinned: this memory is always in context.")
        else:
            await assistant.memories.unpin(memory_id)
            self.say("Unpinned.")

    @in_background("memory-local-only")
    async def set_local_only(self, assistant: Assistant, memory_id: int, marked: bool) -> None:
        item = await assistant.memories.set_local_only(memory_id, marked)
        if marked:
            self.say(f"Local only: “{short(item.content)}” never reaches a model elsewhere.")
        else:
            self.say(f"“{short(item.content)}” is no longer local only.")

    @in_background("memory-promote")
    async def promote(self, assistant: Assistant, memory_id: int) -> None:
        item = await assistant.projects.promote(memory_id)
        self.say(f"Every chat sees “{short(item.content)}” now.")

    @in_background("memory-demote")
    async def demote(self, assistant: Assistant, memory_id: int) -> None:
        item = await assistant.projects.demote(memory_id)
        name = self.model.project_name(item.project_id)
        self.say(f"Only the chats of {name} see “{short(item.content)}” now.")

    @in_background("memory-forget")
    async def forget(self, assistant: Assistant, memory_id: int) -> None:
        item = await assistant.memories.forget(memory_id)
        self.window.offer_undo(f"Forgot “{short(item.content)}”.", memory_id)

    @in_background("memory-restore")
    async def restore(self, assistant: Assistant, memory_id: int) -> None:
        item = await assistant.memories.restore(memory_id)
        self.say(f"Restored “{short(item.content)}”.")

    @in_background("memory-resolve")
    async def resolve(self, assistant: Assistant, memory_id: int, keep: str) -> None:
        item = await assistant.memories.resolve_conflict(memory_id, keep=keep)
        if keep == "new":
            self.say(f"Using “{short(item.content)}” now; the old memory stays in history.")
        else:
            # A rejected conflict is only forgotten: Undo brings the choice back.
            self.window.offer_undo(
                f"Kept the old memory; forgot “{short(item.content)}”.", memory_id
            )

    def announce_learned(self, memory: MemoryItem) -> None:
        """What the processors learned, said where the user looks: a note in the status
        bar with Undo (which forgets it), and the panel scrolled to the new memory."""
        window = self.window
        if memory.origin == Origin.USER or not memory.status.is_current:
            return  # the user's own notes and edits need no announcing
        if memory.status == MemoryStatus.CONFLICT:
            self._announce_conflict(memory)
            return
        if memory.kind == MemoryKind.SUMMARY:
            text = "Summarised older messages into a memory."
        elif memory.status == MemoryStatus.TEMPORARY:
            # Not "updated": it won't reach an answer unless it comes up again.
            text = f"Noted for now (temporary, not used in answers): “{short(memory.content)}”"
        else:
            text = f"Memory updated: “{short(memory.content)}”"
        window.offer_undo(text, memory.id, forgets=True)
        window.reveal_memory(memory.id)

    def announce_forgotten(self, news: ForgottenOnRequest) -> None:
        """What the user asked in a message to forget ("Forget that I have a dog"),
        said, with Undo (which restores it all); when nothing was forgotten, said too,
        with the memory panel searching for it, where the user can pick."""
        memories = news.memories
        if not memories:
            self._offer_search(news)
            return
        quoted = ", ".join(f"“{short(memory.content)}”" for memory in memories)
        what = "" if len(memories) == 1 else f"{len(memories)} memories, "
        self.window.offer_undo(
            f"Forgot {what}{quoted}, as you asked.", [memory.id for memory in memories]
        )

    def _offer_search(self, news: ForgottenOnRequest) -> None:
        asked = short(news.asked)
        if news.matching:
            text = (
                f"Forgot nothing: {news.matching} memories hold “{asked}”, too many to "
                "forget at once. The memory panel lists them: forget the ones you mean there."
            )
        else:
            text = (
                f"Forgot nothing: no memory holds “{asked}”. The memory panel shows what "
                "is closest: forget it there."
            )
        self.say(text)
        self.window.show_memory_tab()
        self.panel.search_for(" ".join(content_terms(news.asked)) or news.asked)

    @in_background("memory-conflict")
    async def _announce_conflict(self, assistant: Assistant, conflict: MemoryItem) -> None:
        """A new fact contradicts one the user pinned or edited: say so, with both, and
        show the conflict (where Use new / Keep old decide)."""
        old = None
        with contextlib.suppress(AcaiError, TypeError, ValueError):
            old = await assistant.memories.get(int(conflict.meta.get("conflicts_with")))
        if old is None:
            text = f"Conflicts with a memory you pinned or edited: “{short(conflict.content)}”"
        else:
            what = "pinned" if old.pinned else "edited"
            text = (
                f"Conflicts with what you {what}: “{short(old.content)}” — new: "
                f"“{short(conflict.content)}”. Decide in the memory panel."
            )
        self.say(text)
        self.window.reveal_memory(conflict.id)

    @in_background("memory-search")
    async def search_by_meaning(self, assistant: Assistant, query: PanelQuery) -> None:
        """Beside the memories holding the search's words, those close in meaning."""
        near = await assistant.memories.near_in_meaning(query.text)
        # A newer search (or filter) may have been asked meanwhile: it wins.
        if self.model.query.asked() == query.asked():
            self.model.set_query(replace(query, near=near))

    @in_background("suggestion-accept")
    async def accept_suggestion(self, assistant: Assistant, suggestion_id: int) -> None:
        memory = await assistant.suggestions.accept(suggestion_id)
        if memory.status == MemoryStatus.CONFLICT:
            # It would replace a memory the user pinned or edited: theirs to decide.
            self._announce_conflict(memory)
            return
        self.say(f"Remembered “{short(memory.content)}”.")

    @in_background("suggestion-dismiss")
    async def dismiss_suggestion(self, assistant: Assistant, suggestion_id: int) -> None:
        await assistant.suggestions.dismiss(suggestion_id)
        self.say("Dismissed: ACAI won't suggest it again for that message.")

    @in_background("suggestions")
    async def refresh_suggestions(self, assistant: Assistant, *_changed: object) -> None:
        """Read the waiting list again (a proposal or a decision, here or in a terminal)."""
        self.panel.suggestions.set_suggestions(await assistant.suggestions.pending())

    @in_background("memory-show")
    async def show_in_panel(self, assistant: Assistant, memory_id: int) -> None:
        """Select ``memory_id`` in the memory panel and scroll to it; a memory the panel
        no longer lists (forgotten, superseded) opens its details instead."""
        window, panel = self.window, self.panel
        window.show_memory_tab()
        if panel.select_memory(memory_id):
            window.reveal_memory(memory_id)
            return
        item = await assistant.memories.get(memory_id)
        if not item.status.is_current:
            self.say(f"That memory is {item.status.value} now; here is its history.")
            self.show_details(memory_id)
            return
        # Not among the loaded rows (a search, a filter, or further down): show the
        # whole list with this memory first.
        panel.clear_query()
        loading = self.model.show_first(memory_id)
        if loading is not None:
            await loading
        if panel.select_memory(memory_id):
            window.reveal_memory(memory_id)

    def show_details(self, memory_id: int) -> None:
        # The dialog opens at once; what it shows is read in the background.
        if self.services.open_or_say_why() is None:
            return
        dialog = self.window.dialogs.memory_details(memory_id)
        dialog.message_open_requested.connect(self.conversations.open_at_message)
        self._fill_details(dialog, memory_id)

    @in_background("memory-details")
    async def _fill_details(
        self, assistant: Assistant, dialog: MemoryDetailsDialog, memory_id: int
    ) -> None:
        memories = assistant.memories
        item = await memories.get(memory_id)
        history = await memories.history(memory_id)
        messages = []
        for message_id in await memories.sources(memory_id):
            try:
                messages.append(await assistant.conversations.get_message(message_id))
            except NotFoundError:
                continue
        used = await assistant.conversations.answers_using_memory(memory_id)
        conflicting = None
        if item.status == "conflict" and item.meta.get("conflicts_with") is not None:
            # If it can't be read, the dialog names it by its id only.
            with contextlib.suppress(NotFoundError, InvalidInputError):
                conflicting = await memories.get(item.meta["conflicts_with"])
        if shiboken6.isValid(dialog):
            dialog.set_details(item, history, messages, used, conflicting=conflicting)

    def save_note(self, text: str) -> None:
        dialog = self.window.dialogs.note
        if self.services.assistant is None:
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.show_error("Still opening the profile; try again in a moment.")
            return
        self._save_note(dialog, text)

    @in_background("note-add")
    async def _save_note(self, assistant: Assistant, dialog: NoteDialog | None, text: str) -> None:
        try:
            await assistant.memories.remember(text, kind="note", explicit=True)
        except AcaiError as error:
            # Refused (empty, too long, control characters): the text stays.
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.show_error(str(error))
            return
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.saved()
        self.say("Noted. ACAI keeps this as you wrote it.")

    @in_background("jobs-retry")
    async def retry_jobs(self, assistant: Assistant, job_ids: list[int]) -> None:
        revived = await assistant.retry_jobs(job_ids)
        if assistant.model_problem is not None:
            # Revived in the database; no runner here, so the bar is updated by hand.
            self.window.show_failed_jobs(await assistant.waiting_jobs())
            self.say("Queued again: they run once the model is connected.")
        else:
            self.say(f"Trying again ({len(revived)}).")
