"""The Review's answers (issue 43, item 1): the facts past their lifetime, shown below
the memory panel's list, read again when a memory changes (an answer here, a
restatement in chat, a change in a terminal); *Still true*, *Edit* and *No longer true*
are the user's, each said in the status bar."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acai_desktop.ui.controllers.base import Controller, Services, in_background, short

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.controllers.memory_panel import MemoryPanelController
    from acai_desktop.ui.main_window import MainWindow


class FactReviewController(Controller):
    def __init__(
        self, window: MainWindow, services: Services, memories: MemoryPanelController
    ) -> None:
        super().__init__(services)
        self.box = window.memory_panel.review
        #: Edits the fact as the panel's own Edit does (the user's words, confirmed now).
        self.memories = memories
        self.box.confirm_requested.connect(self.confirm)
        self.box.edit_requested.connect(memories.ask_edit)
        self.box.retire_requested.connect(self.retire)
        for changed in (window.events.memory_changed, window.events.memory_added):
            changed.connect(self.refresh)
        window.events.memories_changed_in_bulk.connect(self.refresh)

    async def load(self, assistant: Assistant) -> None:
        """The facts due when the profile opens."""
        self.box.set_due(await assistant.review.due())

    @in_background("fact-review")
    async def refresh(self, assistant: Assistant, *_changed: object) -> None:
        await self.load(assistant)

    @in_background("fact-confirm")
    async def confirm(self, assistant: Assistant, memory_id: int) -> None:
        memory = await assistant.review.confirm(memory_id)
        self.say(f"Still true: “{short(memory.content)}”, as of today.")

    @in_background("fact-retire")
    async def retire(self, assistant: Assistant, memory_id: int) -> None:
        memory = await assistant.review.retire(memory_id)
        self.say(
            f"No longer true: answers stop using “{short(memory.content)}” (its history keeps it)."
        )
