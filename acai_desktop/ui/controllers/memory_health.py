"""Memory health: open the view, read its figures, and run an evaluation from it.

The figures come from the assistant's memory service (``memories.health()``), read as a
tracked task (a newer refresh replaces an older one). An evaluation runs as one tracked
task under :data:`EVALUATION_TASK` on the window's loop: its model calls are async and
its database and embedding work run on their own worker threads, so the window stays
responsive; Stop cancels the task, and the evaluation's own clean-up (closing its
temporary assistant, removing its temporary profile) runs before the view says it
stopped. The user's profile only lends its model settings (see
:mod:`acai_desktop.evaluation.temporary_profile`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QTimer

from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.controllers.base import Controller, Services

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.evaluation.runs import Evaluation, EvaluationRequest
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.memory_health import MemoryHealthDialog

log = logging.getLogger(__name__)

HEALTH_TASK = "memory-health"
EVALUATION_TASK = "evaluation"
STILL_OPENING = "Still opening the profile; the figures come once it is open."
RETRY_MS = 500


def model_text(assistant: Assistant) -> str:
    """Which model an evaluation will use: the profile's, as the assistant runs it."""
    if assistant.model_problem is not None:
        return f"Your model can't be used now, so a run would fail: {assistant.model_problem}"
    settings = assistant.settings
    roles = ", ".join(
        f"{role} {settings.model_for(role)}" for role in ("triage", "extraction", "chat")
    )
    return f"Your model: {roles} ({settings.provider})."


class _DialogProgress:
    """An evaluation's progress, shown in the dialog while it is still open."""

    def __init__(self, dialog: MemoryHealthDialog) -> None:
        self.dialog = dialog

    def begin(self, total: int, unit: str, budget: str) -> None:
        if shiboken6.isValid(self.dialog):
            self.dialog.evaluation_begun(total, unit, budget)

    def step(self) -> None:
        if shiboken6.isValid(self.dialog):
            self.dialog.evaluation_stepped()


class MemoryHealthController(Controller):
    """Its widgets: Memory health (button and shortcut) and the memory health window.
    An evaluation borrows the profile's model settings (``profile``, ``overrides``)."""

    def __init__(
        self,
        window: MainWindow,
        services: Services,
        profile: Profile,
        overrides: Callable[[], ModelOverrides | None],
    ) -> None:
        super().__init__(services)
        self.window, self.profile, self.overrides = window, profile, overrides
        #: The evaluation under way and its request (Stop needs both), or None.
        self.running: tuple[Evaluation, EvaluationRequest] | None = None
        window.memory_health_button.clicked.connect(self.open)
        window.memory_health_action.triggered.connect(self.open)

    def open(self) -> MemoryHealthDialog:
        dialog, created = self.window.dialogs.memory_health()
        if created:
            dialog.refresh_requested.connect(self.refresh)
            dialog.evaluation_requested.connect(self.evaluate)
            dialog.stop_requested.connect(self.stop)
        self.refresh()
        return dialog

    def _dialog(self) -> MemoryHealthDialog | None:
        dialog = self.window.dialogs.health
        return dialog if dialog is not None and shiboken6.isValid(dialog) else None

    # -- figures -----------------------------------------------------------------------

    def refresh(self) -> None:
        dialog = self._dialog()
        if dialog is None:
            return
        assistant = self.services.assistant
        if assistant is None:  # opening or reconnecting: try again in a moment
            dialog.show_health_error(STILL_OPENING)
            if dialog.isVisible():
                QTimer.singleShot(RETRY_MS, self.refresh)
            return
        self.services.tasks.start(self._refresh(assistant, dialog), key=HEALTH_TASK)

    async def _refresh(self, assistant: Assistant, dialog: MemoryHealthDialog) -> None:
        try:
            health = await assistant.memories.health()
        except AcaiError as error:  # the environment's fault (disk, lock): say it
            if shiboken6.isValid(dialog):
                dialog.show_health_error(str(error))
            return
        if shiboken6.isValid(dialog):
            dialog.show_health(health)
            dialog.evaluation.set_model(model_text(assistant))

    # -- evaluations -------------------------------------------------------------------

    def evaluate(self, name: str, dataset: str, limit: int) -> None:
        dialog = self._dialog()
        if dialog is None or self.services.tasks.get(EVALUATION_TASK) is not None:
            return  # one run at a time
        # Loaded when asked for, like the view itself: start-up doesn't pay for it.
        from acai_desktop.evaluation.runs import EVALUATIONS, EvaluationRequest

        request = EvaluationRequest(
            model_of=self.profile,
            dataset=Path(dataset).expanduser() if dataset else None,
            limit=limit or None,
            overrides=self.overrides(),
        )
        evaluation = EVALUATIONS[name]
        dialog.set_running(True)
        self.running = (evaluation, request)
        self.services.tasks.start(self._evaluate(dialog, evaluation, request), key=EVALUATION_TASK)

    async def _evaluate(
        self, dialog: MemoryHealthDialog, evaluation: Evaluation, request: EvaluationRequest
    ) -> None:
        try:
            result = await evaluation.run(request, _DialogProgress(dialog))
        except asyncio.CancelledError:
            if shiboken6.isValid(dialog):
                dialog.evaluation_stopped()
            raise
        except AcaiError as error:  # a refused dataset, a model that can't be reached
            if shiboken6.isValid(dialog):
                dialog.evaluation_failed(str(error))
        except Exception as error:
            if shiboken6.isValid(dialog):
                dialog.evaluation_failed(f"{type(error).__name__}: {error} (details in the log)")
            raise  # our bug: the task tracker logs it with its traceback
        else:
            if shiboken6.isValid(dialog):
                dialog.evaluation_finished(result.text, stopped=result.stopped)
        finally:
            self.running = None
            if shiboken6.isValid(dialog):
                dialog.set_running(False)

    def stop(self) -> None:
        """Ask an evaluation that stops gracefully to stop after the step under way (it
        still reports what it measured); otherwise, or asked twice, cancel it."""
        running, dialog = self.running, self._dialog()
        if running is None:
            return
        evaluation, request = running
        at_once = not evaluation.stops_gracefully or request.stop.is_set()
        if at_once:
            self.services.tasks.cancel(EVALUATION_TASK)
        else:
            request.stop.set()
        if dialog is not None:
            dialog.evaluation_stopping(at_once=at_once)
