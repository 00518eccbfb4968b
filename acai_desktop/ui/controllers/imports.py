"""File > Import from ChatGPT / Claude, and pausing or resuming what ACAI learns from
the imported conversations. The work is the core's (``assistant.imports``); here a file
and a learning budget are chosen, and the status bar says how far it is."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu

from acai_desktop.core.errors import AcaiError
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.ui.controllers.base import Controller, Services, in_background, short

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.main_window import MainWindow

log = logging.getLogger(__name__)

SOURCES = {"chatgpt": "ChatGPT", "claude": "Claude"}
#: The learning budgets offered, as the user reads them.
BUDGETS = {
    "Everything I wrote": "all",
    "What I wrote in the last 12 months": "months:12",
    "What I wrote in the last 3 months": "months:3",
    "Nothing (search and recall only)": "none",
}
#: The status bar says how far learning is at most this often (and always after the last).
PROGRESS_EVERY_MS = 1000


def file_menu(window: MainWindow) -> QMenu:
    """The window's File menu (made on first use)."""
    for action in window.menuBar().actions():
        if action.menu() is not None and action.text() == "&File":
            return action.menu()
    return window.menuBar().addMenu("&File")


class ImportsController(Controller):
    """Its widgets: the File menu's import, pause and resume entries and the dialogs
    they open; the status bar says how far an import and its learning are."""

    def __init__(self, window: MainWindow, services: Services) -> None:
        super().__init__(services)
        self.window = window
        menu = file_menu(window)
        for source, label in SOURCES.items():
            action = menu.addAction(f"Import from {label}…")
            action.triggered.connect(lambda _checked=False, s=source: self.choose_file(s))
        menu.addSeparator()
        menu.addAction("Pause learning from imports").triggered.connect(self._pause)
        menu.addAction("Resume learning from imports").triggered.connect(self._resume)
        window.events.job_status_changed.connect(self._on_events_job_status_changed)
        self._progress_timer = QTimer(window)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_EVERY_MS)
        self._progress_timer.timeout.connect(self._say_progress)

    def choose_file(self, source: str) -> None:
        if self.services.open_or_say_why() is None:
            return
        dialog = QFileDialog(
            self.window, f"Import {SOURCES[source]}'s conversations.json", "", "JSON (*.json)"
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.choose_budget(source, path))
        dialog.open()

    def choose_budget(self, source: str, path: str) -> None:
        if self.services.open_or_say_why() is None:
            return
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle("Learn from the imported conversations")
        dialog.setLabelText(
            "The conversations are searchable and recalled at once. Which of your "
            "messages should ACAI learn facts from, in the background?"
        )
        dialog.setComboBoxItems(list(BUDGETS))
        dialog.textValueSelected.connect(lambda text: self.import_file(source, path, BUDGETS[text]))
        dialog.open()

    @in_background("import-conversations")
    async def import_file(self, assistant: Assistant, source: str, path: str, budget: str) -> None:
        from acai_desktop.core.conversations.chat_import.budget import (
            LearningBudget,  # not needed to paint
        )

        label = SOURCES[source]
        self.say(f"Reading the {label} export…")
        written = [0, 0]  # conversations written, in the file

        def progress(done: int, total: int) -> None:
            written[:] = [done, total]
            self.say(f"Importing conversations… {done} of {total}")

        try:
            report = await assistant.imports.import_file(
                source, path, LearningBudget.parse(budget), progress=progress
            )
        except AcaiError:
            raise  # a refusal in words of its own: the status bar shows it as it is
        except Exception as error:
            # A fault of ours must not leave "Importing… 1000 of 2001" standing as if
            # the import were still running: say it stopped, and what is kept.
            log.exception("importing %s failed", path)
            done, total = written
            kept = f" The first {done} of {total} conversations are kept;" if done else ""
            why = short(f"{type(error).__name__}: {error}", 200)
            self.services.say(
                f"The {label} import stopped: {why}.{kept} importing the file again adds "
                "only what is missing.",
                30_000,
            )
            return
        text = f"Imported {report.conversations} conversations from {label}"
        if report.skipped_conversations:
            text += f" ({report.skipped_conversations} were here already)"
        if report.learning_jobs:
            text += f"; learning from {report.learning_jobs} of your messages in the background"
        self.say(" ".join(filter(None, [text + ".", report.repeats_text()])))

    @in_background("import-learning")
    async def _pause(self, assistant: Assistant, *_checked) -> None:
        self.say((await assistant.imports.pause_learning()).text())

    @in_background("import-learning")
    async def _resume(self, assistant: Assistant, *_checked) -> None:
        self.say((await assistant.imports.resume_learning()).text())

    def _on_events_job_status_changed(self, job: Job) -> None:
        # Here, not at the top: the import service pulls in numpy, which
        # the window loads after it paints (a job event comes once the assistant is up).
        from acai_desktop.core.conversations.chat_import.service import LEARN_IMPORTED_JOB

        if job.kind != LEARN_IMPORTED_JOB or job.status not in (JobStatus.DONE, JobStatus.FAILED):
            return
        if not self._progress_timer.isActive():  # one reading for the jobs of a second
            self._progress_timer.start()

    @in_background("import-learning")
    async def _say_progress(self, assistant: Assistant) -> None:
        self.say((await assistant.imports.learning_progress()).text())
