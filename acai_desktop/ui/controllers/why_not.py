""" "Why not …?" from an answer's Sources: look for what the answer should have used,
explain why its turn, replayed as it was, did not use it, and apply a fix the user
clicks. The core does all of it (core/why_not); this controller wires the dialog's
requests to it, off the UI thread, and shows what comes back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6

from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.controllers.base import Controller, Services, in_background

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.why_not.result import Fix
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.why_not_dialog import WhyNotDialog

#: One search and one explanation at a time per kind: a newer one replaces the older.
SEARCH_TASK, EXPLAIN_TASK = "why-not-search", "why-not-explain"


class WhyNotController(Controller):
    def __init__(self, window: MainWindow, services: Services) -> None:
        super().__init__(services)
        self.window = window

    def open_for(self, answer_id: int, question: str, opener: QWidget) -> WhyNotDialog:
        """The "Why not …?" dialog for ``answer_id``, above ``opener`` (its Sources)."""
        dialog = self.window.dialogs.why_not(answer_id, question, opener)
        dialog.search_requested.connect(lambda words: self._search(dialog, words))
        dialog.explain_requested.connect(lambda kind, item: self._explain(dialog, kind, item))
        dialog.fix_requested.connect(lambda fix: self._fix(dialog, fix))
        return dialog

    def _search(self, dialog: WhyNotDialog, words: str) -> None:
        if (assistant := self.services.open_or_say_why()) is not None:
            self.services.run(self._found(assistant, dialog, words), SEARCH_TASK, key=SEARCH_TASK)

    def _explain(self, dialog: WhyNotDialog, kind: str, item_id: int) -> None:
        if (assistant := self.services.open_or_say_why()) is not None:
            work = self._explained(assistant, dialog, kind, item_id)
            self.services.run(work, EXPLAIN_TASK, key=EXPLAIN_TASK)

    async def _found(self, assistant: Assistant, dialog: WhyNotDialog, words: str) -> None:
        from acai_desktop.core.why_not.service import why_not_of

        try:
            found = await why_not_of(assistant).find(words, answer_id=dialog.answer_id)
        except AcaiError as error:
            if shiboken6.isValid(dialog):
                dialog.show_error(str(error))
            raise
        if shiboken6.isValid(dialog):
            dialog.show_candidates(found)

    async def _explained(
        self, assistant: Assistant, dialog: WhyNotDialog, kind: str, item_id: int
    ) -> None:
        from acai_desktop.core.why_not.service import why_not_of

        try:
            result = await why_not_of(assistant).explain(dialog.answer_id, kind, item_id)
        except AcaiError as error:
            if shiboken6.isValid(dialog):
                dialog.show_error(str(error))
            raise
        if shiboken6.isValid(dialog):
            dialog.show_result(result)

    @in_background("why-not-fix")
    async def _fix(self, assistant: Assistant, dialog: WhyNotDialog, fix: Fix) -> None:
        from acai_desktop.core.why_not.fixes import apply_fix

        try:
            said = await apply_fix(fix, assistant.memories, assistant.projects, assistant.documents)
        except AcaiError as error:
            if shiboken6.isValid(dialog):
                dialog.show_fix_failed(str(error))
            raise
        if shiboken6.isValid(dialog):
            dialog.show_fixed(said)
        self.say(said)
