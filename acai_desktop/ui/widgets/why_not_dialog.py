""" "Why not …?", opened from an answer's Sources: the user looks for what the answer
should have used (a memory, a message of any chat, a document passage) by typing or
pasting its words, picks it, and reads why the answer's turn, replayed as it was, did
not use it, with the fixes that apply as buttons. Every text here is the user's or a
document's: shown as plain text only (ui/untrusted.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.why_not.result import Fix, ItemKind, ItemRef, Reason, WhyNot
from acai_desktop.ui.untrusted import plain_label, tooltip_text
from acai_desktop.ui.widgets.dialogs import BaseDialog
from acai_desktop.ui.widgets.flow_layout import FlowLayout

#: Each reason as the dialog's heading says it.
HEADINGS = {
    Reason.USED: "Used",
    Reason.BELOW_FLOOR: "Below the relevance floor",
    Reason.OTHER_SCOPE: "Out of this chat's reach",
    Reason.FORGOTTEN: "Forgotten",
    Reason.SUPERSEDED: "Replaced by a newer memory",
    Reason.OVER_BUDGET: "Cut by the budget",
    Reason.NOT_FOUND: "Not found by the search",
    Reason.WITHHELD: "Withheld: local only",
}
KIND_LABELS = {ItemKind.MEMORY: "Memory", ItemKind.MESSAGE: "Message", ItemKind.PASSAGE: "Passage"}
INTRO = (
    "What should this answer have used? Type or paste its words: your memories, chats "
    "and documents are searched, and the best match is explained. Pick another to see "
    "why it was left out."
)
NOTHING_FOUND = "Nothing in memory, your chats or your documents holds these words."
#: A candidate's text in the list is cut to this many characters.
SHOWN_CHARS = 140


def _short(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class WhyNotDialog(BaseDialog):
    #: Look for items holding these words.
    search_requested = Signal(str)
    #: Explain one item: its kind (an ItemKind's value) and id.
    explain_requested = Signal(str, int)
    #: Apply a fix the user clicked (a core.why_not.result.Fix).
    fix_requested = Signal(object)

    def __init__(self, answer_id: int, question: str = "", parent: QWidget | None = None) -> None:
        super().__init__("Why not …?", parent)
        self.answer_id = answer_id
        self.resize(580, 520)
        intro = plain_label(INTRO, "DialogNote")
        intro.setWordWrap(True)
        self.question = plain_label(f"The question: {question}" if question else "")
        self.question.setWordWrap(True)
        self.words = QLineEdit()
        self.words.setPlaceholderText("Words of a memory, a message or a document")
        self.words.setAccessibleName("What should have been used")
        self.words.setClearButtonEnabled(True)
        self.search_button = QPushButton("Search")
        search_row = QHBoxLayout()
        search_row.addWidget(self.words, 1)
        search_row.addWidget(self.search_button)
        self.results = QListWidget()
        self.results.setAccessibleName("What holds these words")
        self.results.setWordWrap(True)
        # A few matches show; the reason below keeps the room.
        self.results.setMinimumHeight(64)
        self.results.setMaximumHeight(150)
        self.result_box = QWidget()
        self.result_box.setObjectName("WhyNotResult")
        result_layout = QVBoxLayout(self.result_box)
        result_layout.setContentsMargins(0, 0, 0, 0)
        self.heading = plain_label("", "WhyNotReason")
        self.item_text = plain_label("", "DialogNote")
        self.item_text.setWordWrap(True)
        self.sentence = plain_label("", "DetectResult")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.figures = plain_label("", "DialogNote")
        self.figures.setWordWrap(True)
        self.fixes = QWidget()
        self.fixes_layout = FlowLayout(self.fixes)
        self.applied = plain_label("", "DialogNote")
        for widget in (self.heading, self.item_text, self.sentence, self.figures):
            result_layout.addWidget(widget)
        result_layout.addWidget(self.fixes)
        result_layout.addWidget(self.applied)
        result_layout.addStretch(1)
        self.result_box.hide()
        self.error = plain_label("", "DialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.layout_.addWidget(intro)
        self.layout_.addWidget(self.question)
        self.layout_.addLayout(search_row)
        self.layout_.addWidget(self.results)
        self.layout_.addWidget(self.error)
        self.layout_.addWidget(self.result_box, 1)
        self.layout_.addWidget(buttons)
        self.fix_buttons: list[QPushButton] = []
        #: The item last asked about (kind, id): a slower answer about another is old.
        self.asked: tuple[str, int] | None = None
        self.search_button.clicked.connect(self._on_search_clicked)
        self.words.returnPressed.connect(self._on_search_clicked)
        self.results.currentItemChanged.connect(self._on_results_current_changed)
        self.words.setFocus()

    def done(self, result: int) -> None:
        # Deleting the list moves its current item: nobody is to be asked about that.
        self.results.blockSignals(True)
        super().done(result)

    # -- the user's requests ---------------------------------------------------------

    def _on_search_clicked(self) -> None:
        words = self.words.text().strip()
        if words:
            self.error.hide()
            self.search_requested.emit(words)

    def _on_results_current_changed(self, current: QListWidgetItem | None, _previous) -> None:
        if current is None:
            return
        kind, item_id = self.asked = current.data(Qt.ItemDataRole.UserRole)
        self.explain_requested.emit(kind, item_id)

    def _on_fix_clicked(self, fix: Fix) -> None:
        for button in self.fix_buttons:
            button.setEnabled(False)
        self.fix_requested.emit(fix)

    # -- what the controller shows ---------------------------------------------------

    def show_candidates(self, found: list[ItemRef]) -> None:
        """What holds the words, best first; the best is explained at once."""
        self.asked = None
        self.results.blockSignals(True)  # emptying it moves the current item row by row
        self.results.clear()
        self.results.blockSignals(False)
        if not found:
            self.show_error(NOTHING_FOUND)
            self.result_box.hide()
            return
        for ref in found:
            label = f"{KIND_LABELS[ref.kind]} · {ref.where}\n{_short(ref.text)}"
            item = QListWidgetItem(label)  # an item view shows its text as plain text
            item.setData(Qt.ItemDataRole.UserRole, (ref.kind.value, ref.id))
            self.results.addItem(item)
        self.results.setCurrentRow(0)

    def show_result(self, result: WhyNot) -> None:
        """The reason in plain words, the figures behind it, and the fixes as buttons
        (unless the user has asked about another item meanwhile)."""
        item = result.item
        if item is None or self.asked != (item.kind.value, item.id):
            return
        self.error.hide()
        self.heading.setText(HEADINGS[result.reason])
        self.item_text.setText(f"{KIND_LABELS[item.kind]} · {item.where}: {_short(item.text, 240)}")
        self.sentence.setText(result.sentence)
        figures = []
        if result.rank is not None:
            figures.append(f"rank {result.rank}, score {result.score:.2f}")
        if result.evidence is not None and result.floor is not None:
            figures.append(f"evidence {result.evidence:.2f} of the floor's {result.floor:g}")
        self.figures.setText(" · ".join(figures))
        self.figures.setVisible(bool(figures))
        self._set_fixes(result.fixes)
        self.applied.setText("")
        self.result_box.show()

    def _set_fixes(self, fixes: tuple[Fix, ...]) -> None:
        for button in self.fix_buttons:
            self.fixes_layout.removeWidget(button)
            button.deleteLater()
        self.fix_buttons = []
        for fix in fixes:
            button = QPushButton(fix.label)
            if fix.text:  # what the note will say, before it is written
                button.setToolTip(tooltip_text(f"The note: {fix.text}"))
                button.setAccessibleDescription(fix.text)
            button.clicked.connect(lambda _checked=False, chosen=fix: self._on_fix_clicked(chosen))
            self.fixes_layout.addWidget(button)
            self.fix_buttons.append(button)
        self.fixes.setVisible(bool(fixes))

    def show_fixed(self, said: str) -> None:
        """A fix was applied: say so (its buttons stay off: the item changed)."""
        self.applied.setText(f"{said} Regenerate the answer to use it.")

    def show_fix_failed(self, text: str) -> None:
        for button in self.fix_buttons:
            button.setEnabled(True)
        self.show_error(text)

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
