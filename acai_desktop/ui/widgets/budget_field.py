"""The context budget as a choice: automatic (it follows the model's context window) or a
number of tokens, with a line saying what it comes to now ("Automatic: 16,000 tokens
(half of llama3.1's 128k window, capped)"). Settings and a chat's ⚙ dialog both use it.

The rule behind the line is the core's (``core.models.prompt_budget``): this only shows it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from acai_desktop.core.models.prompt_budget import (
    MAX_BUDGET_TOKENS,
    MIN_BUDGET_TOKENS,
    UNKNOWN_WINDOW_TOKENS,
    PromptBudget,
    resolve_budget,
)
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

AUTOMATIC_CHOICE, NUMBER_CHOICE = "Automatic", "Fixed number"
#: What the line says when the automatic budget is not known here (the model changed
#: in the dialog: its window is asked for once the settings are saved).
UNKNOWN_AUTOMATIC = "Automatic: follows the model's context window (worked out when saved)"


class BudgetField(QWidget):
    #: The choice or the number changed.
    changed = Signal()

    def __init__(self, name: str = "Context budget", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("BudgetField")
        #: What automatic comes to now (None: not known here).
        self.automatic: PromptBudget | None = None
        self.mode = ignore_wheel_unless_focused(QComboBox())
        self.mode.addItem(AUTOMATIC_CHOICE, True)
        self.mode.addItem(NUMBER_CHOICE, False)
        self.mode.setAccessibleName(f"{name}: automatic or a fixed number")
        self.tokens = ignore_wheel_unless_focused(QSpinBox())
        self.tokens.setRange(MIN_BUDGET_TOKENS, MAX_BUDGET_TOKENS)
        self.tokens.setSingleStep(500)
        self.tokens.setGroupSeparatorShown(True)
        self.tokens.setSuffix(" tokens")
        # The style sheet's padding doesn't reach a spin box's own line edit.
        self.tokens.lineEdit().setTextMargins(8, 0, 0, 0)
        self.tokens.setAccessibleName(name)
        self.tokens.setValue(UNKNOWN_WINDOW_TOKENS)
        self.note = plain_label("", "DialogNote")
        self.note.setWordWrap(True)
        self.setToolTip(
            "How much of the prompt ACAI fills with memories, documents and history. "
            "Automatic follows the model's context window."
        )
        self._choice_row = row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.mode)
        row.addWidget(self.tokens, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self.mode.currentIndexChanged.connect(self._on_mode_changed)
        self.tokens.valueChanged.connect(self._on_tokens_changed)
        self._show()

    def is_automatic(self) -> bool:
        return bool(self.mode.currentData())

    def value(self) -> int | None:
        """The number chosen, or None for automatic."""
        return None if self.is_automatic() else self.tokens.value()

    def set_value(self, tokens: int | None) -> None:
        """Show a saved choice (None: automatic)."""
        if tokens is not None:
            self.tokens.setValue(tokens)
        self.mode.setCurrentIndex(self.mode.findData(tokens is None))
        self._show()

    def choice_height(self) -> int:
        """The height of the first row (the choice and the number), without the note
        under it: what a label or a tick beside the field lines up with."""
        self.ensurePolished()  # the style sheet's padding makes the boxes' height
        return self._choice_row.sizeHint().height()

    def set_automatic(self, budget: PromptBudget | None) -> None:
        """What automatic comes to now (None: not known here)."""
        self.automatic = budget
        if self.is_automatic() and budget is not None:
            self.tokens.setValue(budget.tokens)
        self._show()

    def text(self) -> str:
        """The line under the field."""
        if self.is_automatic():
            return self.automatic.full_text() if self.automatic is not None else UNKNOWN_AUTOMATIC
        chosen = resolve_budget(
            self.tokens.value(),
            self.automatic.window if self.automatic is not None else None,
            answer_max_tokens=self.automatic.answer_max_tokens if self.automatic else None,
        )
        return chosen.note()

    def _show(self) -> None:
        # While automatic, the spin box shows what automatic gives (a fixed number
        # starts from there) and can't be edited.
        self.tokens.setEnabled(not self.is_automatic())
        self.note.setText(self.text())

    def _on_mode_changed(self, _index: int) -> None:
        self._show()
        self.changed.emit()

    def _on_tokens_changed(self, _value: int) -> None:
        self._show()
        self.changed.emit()
