"""The memory health window's *Evaluate* tab: pick an evaluation, a dataset when it needs
one, Run and Stop, a progress bar, and the figures as plain text when it is done.

It only shows and asks (``run_requested``, ``stop_requested``); the session runs the
evaluation (see :mod:`acai_desktop.ui.controllers.memory_health`).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.evaluation.runs import EVALUATIONS, Evaluation
from acai_desktop.ui.fonts import fixed_width_font
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.file_dialogs import file_dialog
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

SAFETY_NOTE = (
    "Each run uses your configured model in a temporary profile that is deleted "
    "afterwards: your conversations and memories are not read or changed. It makes "
    "real model calls (the budget shows when it starts)."
)
DATASET_FILTERS = "LoCoMo-format JSON (*.json);;All files (*)"


class EvaluationPanel(QWidget):
    run_requested = Signal(str, str, int)  # evaluation name, dataset path or "", limit or 0
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.running = False
        self.total = 0
        self.started = 0.0
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.choice = ignore_wheel_unless_focused(QComboBox())
        self.choice.setAccessibleName("Evaluation")
        for evaluation in EVALUATIONS.values():
            self.choice.addItem(evaluation.title, evaluation.name)
        form.addRow("Evaluation", self.choice)
        self.about = plain_label("", "DialogNote")
        self.about.setWordWrap(True)
        form.addRow("", self.about)

        self.dataset = QLineEdit()
        self.dataset.setPlaceholderText("A LoCoMo-format dataset file (.json)")
        self.dataset.setAccessibleName("Dataset file")
        self.browse_button = QPushButton("Choose…")
        dataset_row = QHBoxLayout()
        dataset_row.addWidget(self.dataset, 1)
        dataset_row.addWidget(self.browse_button)
        self.dataset_row = QWidget()
        self.dataset_row.setLayout(dataset_row)
        dataset_row.setContentsMargins(0, 0, 0, 0)
        form.addRow("Dataset", self.dataset_row)
        self.limit = ignore_wheel_unless_focused(QSpinBox())
        self.limit.setRange(0, 1000)
        self.limit.setValue(1)
        self.limit.setSpecialValueText("all")
        self.limit.setAccessibleName("Sessions per sample")
        self.limit.setMaximumWidth(120)
        self.limit.setToolTip("Play only the first sessions of each sample (keeps a run short)")
        form.addRow("Sessions per sample", self.limit)
        layout.addLayout(form)

        self.model = plain_label("", "DialogNote")  # which model a run uses (as set up)
        self.model.setWordWrap(True)
        self.model.setVisible(False)
        layout.addWidget(self.model)
        note = plain_label(SAFETY_NOTE, "DialogNote")
        note.setWordWrap(True)
        layout.addWidget(note)
        buttons = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("PrimaryButton")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Evaluation progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)  # "0 / 1" before any run would mean nothing
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.progress, 1)
        layout.addLayout(buttons)
        self.state = plain_label("", "DialogNote")
        self.state.setWordWrap(True)
        layout.addWidget(self.state)
        # Why a run could not start or went wrong (a server's error text: plain).
        self.error = plain_label("", "DialogError")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        layout.addWidget(self.error)
        self.results = QPlainTextEdit()
        self.results.setReadOnly(True)
        self.results.setAccessibleName("Evaluation results")
        self.results.setFont(fixed_width_font())
        self.results.setPlaceholderText("The figures appear here when a run finishes.")
        layout.addWidget(self.results, 1)

        self.choice.currentIndexChanged.connect(self._on_choice_current_index_changed)
        self.browse_button.clicked.connect(self._on_browse_button_clicked)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        self._on_choice_current_index_changed(self.choice.currentIndex())

    @property
    def evaluation(self) -> Evaluation:
        return EVALUATIONS[self.choice.currentData()]

    def set_model(self, text: str) -> None:
        self.model.setText(text)
        self.model.setVisible(bool(text))

    def choose(self, name: str) -> None:
        self.choice.setCurrentIndex(self.choice.findData(name))

    @Slot(int)
    def _on_choice_current_index_changed(self, _index: int) -> None:
        evaluation = self.evaluation
        self.about.setText(evaluation.about)
        self.dataset_row.setEnabled(evaluation.needs_dataset and not self.running)
        self.limit.setEnabled(evaluation.needs_dataset and not self.running)

    @Slot()
    def _on_browse_button_clicked(self) -> None:
        dialog = file_dialog(self, "Choose a LoCoMo-format dataset")
        dialog.setNameFilter(DATASET_FILTERS)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.dataset.setText)
        dialog.open()  # never exec(): no nested loop

    @Slot()
    def _on_run_button_clicked(self) -> None:
        evaluation = self.evaluation
        dataset = self.dataset.text().strip()
        if evaluation.needs_dataset and not dataset:
            self.failed("Choose a LoCoMo-format dataset file first.")
            return
        limit = self.limit.value() if evaluation.needs_dataset else 0
        self.run_requested.emit(evaluation.name, dataset if evaluation.needs_dataset else "", limit)

    @Slot()
    def _on_stop_button_clicked(self) -> None:
        self.stop_requested.emit()

    # -- what the session reports ------------------------------------------------------

    def set_running(self, running: bool) -> None:
        self.running = running
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.choice.setEnabled(not running)
        self._on_choice_current_index_changed(self.choice.currentIndex())
        if running:
            self.error.setVisible(False)
            self.started = time.monotonic()
            self.total = 0
            self.progress.setRange(0, 0)  # busy until the run says how long it is
            self.state.setText(f"Starting {self.evaluation.title.lower()}…")
            self.results.clear()

    def begun(self, total: int, unit: str, budget: str) -> None:
        self.total = total
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(0)
        self.progress.setFormat(f"%v / %m {unit}")
        self.progress.setTextVisible(True)
        self.state.setText(f"{budget}. Stop ends the run; nothing it made is kept.")

    def stepped(self) -> None:
        self.progress.setValue(min(self.progress.value() + 1, self.progress.maximum()))

    def stopping(self, *, at_once: bool) -> None:
        if at_once:
            self.stop_button.setEnabled(False)
            self.state.setText("Stopping…")
        else:  # the run ends after the step under way, with what it measured
            self.state.setText(
                "Stopping after the step under way, with the figures so far. "
                "Stop again to stop at once, without them."
            )

    def finished(self, text: str, *, stopped: bool = False) -> None:
        seconds = time.monotonic() - self.started
        if stopped:
            self._idle_progress()
            self.state.setText(f"Stopped after {seconds:.0f} s: the figures measured until then.")
        else:
            self.progress.setRange(0, max(self.total, 1))
            self.progress.setValue(self.progress.maximum())
            self.state.setText(f"Done in {seconds:.0f} s." if seconds >= 1 else "Done.")
        self.results.setPlainText(text)

    def stopped(self) -> None:
        self._idle_progress()
        self.state.setText("Stopped: no figures (the temporary profile was removed).")

    def failed(self, text: str) -> None:
        self._idle_progress()
        self.state.setText("")
        self.error.setText(f"The evaluation could not run: {text}")
        self.error.setVisible(True)

    def _idle_progress(self) -> None:
        if self.progress.maximum() == 0:  # still busy-looking
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
