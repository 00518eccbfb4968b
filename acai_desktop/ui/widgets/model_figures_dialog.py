"""Settings → Your models → Edit…: what ACAI takes one model to be, as the user says it
(issue 42, item 1): its tier, window, what it can do, its price, what it is strong at,
and where its server runs.

The figures open as they count now (ACAI's known ones, or the user's own from
``model-table.json``). Nothing is written before Save, which hands the session a
``ModelTableEdit`` (``save_requested``): only the figures that differ from the known
ones, so one the user left alone follows ACAI's table. The session answers through
:meth:`ModelFiguresDialog.refused` (the dialog stays open, nothing lost) or closes it.
Reset to known figures fills the known ones in, and offers Undo until the next change.
Opened with ``open()``, never ``exec()``.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.routing.catalogue import known_figures
from acai_desktop.core.routing.known_models import Capabilities
from acai_desktop.core.routing.model_table import ModelTable, table_name
from acai_desktop.core.routing.model_table_edits import ModelTableEdit, figures_between
from acai_desktop.core.routing.selection import Candidate, Where, where_it_runs
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.dialogs import error_label, save_cancel_buttons
from acai_desktop.ui.widgets.elided_label import ElidedLabel
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

TITLE = "Your figures for a model"
RESET_TEXT = "Reset to known figures"
UNDO_RESET_TEXT = "Undo reset"
TIER_TEXT = {
    1: "1 · tiny: chat, no code or sums",
    2: "2 · small (1–4B)",
    3: "3 · mid-size (7–14B), a cloud's small one",
    4: "4 · large (27–72B), a cloud's main one",
    5: "5 · frontier",
}
#: The kinds of words a model can be better at than its tier says (the router reads a
#: turn's words as one of them; an image or a long file asks for vision or a window).
STRONG_KINDS = (TurnKind.CHAT, TurnKind.CODE, TurnKind.REASONING, TurnKind.WRITING)
#: Wide enough for the notes to wrap in two lines; narrow beside a 640-pixel window.
WIDTH = 480
MAX_WINDOW = 100_000_000
MAX_PRICE = 1_000.0


def source_text(candidate: Candidate, table: ModelTable) -> str:
    """Whose figures the dialog opens with."""
    found = table.entry_for(candidate.model)
    if found is not None and found[0] == table_name(candidate.model):
        return "Your figures (model-table.json). Reset brings back ACAI's."
    if found is not None:
        return (
            "Your figures for its family, from model-table.json; Save gives this model "
            "figures of its own."
        )
    if known_figures(candidate.model, candidate.where)[0].known:
        return "ACAI's known figures. What you change is saved as yours."
    return "ACAI doesn't know this model: these figures are a guess until you save them."


class ModelFiguresDialog(QDialog):
    #: The edit as chosen (a ModelTableEdit), on Save.
    save_requested = Signal(object)

    def __init__(
        self, candidate: Candidate, table: ModelTable, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setObjectName("ModelFiguresDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.candidate = candidate
        #: Where the server's address says it runs (the user's word may differ).
        self.address_where = where_it_runs(candidate.base_url)
        #: Reset filled in the known figures and nothing changed since: Save clears.
        self._reset = False
        #: The figures before Reset, while Undo is offered.
        self._before_reset: tuple[Capabilities, int] | None = None
        self._filling = False

        heading = ElidedLabel(candidate.model)
        heading.setObjectName("PanelTitle")
        address = f" · {candidate.base_url}" if candidate.base_url else ""
        server = plain_label(f"{candidate.provider}{address}", "DialogNote")
        self.source_note = plain_label(source_text(candidate, table), "DialogNote")
        self.source_note.setWordWrap(True)

        self.tier = ignore_wheel_unless_focused(QComboBox())
        self.tier.setAccessibleName("Tier")
        for tier, text in TIER_TEXT.items():
            self.tier.addItem(text, tier)
        self.window_tokens = ignore_wheel_unless_focused(QSpinBox())
        self.window_tokens.setAccessibleName("Window")
        self.window_tokens.setRange(256, MAX_WINDOW)
        self.window_tokens.setSingleStep(1024)
        self.window_tokens.setGroupSeparatorShown(True)
        self.window_tokens.setSuffix(" tokens")
        self.vision = QCheckBox("images")
        self.vision.setToolTip("It sees images attached to a message")
        self.tools = QCheckBox("tools")
        self.tools.setToolTip("It calls tools (functions) when asked")
        self.json_schema = QCheckBox("JSON schemas")
        self.json_schema.setToolTip("It answers in JSON that follows a given schema")
        self.strong = {kind: QCheckBox(str(kind)) for kind in STRONG_KINDS}
        self.price_in = self._price_box("Price in", "What a million prompt tokens cost")
        self.price_out = self._price_box("Price out", "What a million answer tokens cost")
        self.where_box = ignore_wheel_unless_focused(QComboBox())
        self.where_box.setAccessibleName("Runs on")
        for where in Where:
            read = where is self.address_where and candidate.base_url is not None
            said = " (as its address says)" if read else ""
            self.where_box.addItem(f"{where}{said}", where)
        self.where_box.setEnabled(candidate.base_url is not None)
        self.where_note = plain_label("", "DialogNote")
        self.where_note.setWordWrap(True)
        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Save")
        self.reset_button = self.buttons.addButton(
            RESET_TEXT, QDialogButtonBox.ButtonRole.ResetRole
        )
        self.reset_button.setToolTip(
            "Fill in ACAI's figures for this model; nothing is saved until you press Save."
        )

        form = QFormLayout()
        form.setHorizontalSpacing(14)
        form.setVerticalSpacing(8)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Tier", self.tier)
        form.addRow("Window", self.window_tokens)
        form.addRow("Handles", _row(self.vision, self.tools, self.json_schema))
        form.addRow("Strong at", _row(*self.strong.values()))
        form.addRow("Price in", self.price_in)
        form.addRow("Price out", self.price_out)
        form.addRow("Runs on", self.where_box)
        form.addRow("", self.where_note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 16)
        layout.setSpacing(8)
        layout.addWidget(heading)
        layout.addWidget(server)
        layout.addWidget(self.source_note)
        layout.addSpacing(4)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        said = table.said_where(candidate.base_url)
        self.where_box.setCurrentIndex(self.where_box.findData(said or self.address_where))
        #: Where the known prices in the boxes are for (they follow a change of place).
        self._priced_for = self.where()
        self._fill(candidate.capabilities, candidate.window_tokens)
        self._say_where()
        self._connect_signals()
        # As tall as the notes wrapped at that width need (a size hint is taller or
        # shorter: it is worked out for the labels unwrapped).
        self.resize(WIDTH, max(self.layout().heightForWidth(WIDTH), self.minimumHeight()))

    def _price_box(self, name: str, tip: str) -> QDoubleSpinBox:
        box = ignore_wheel_unless_focused(QDoubleSpinBox())
        box.setAccessibleName(name)
        box.setToolTip(f"{tip}, in US dollars (0: free, on your own hardware)")
        box.setRange(0.0, MAX_PRICE)
        box.setDecimals(2)
        box.setSingleStep(0.1)
        box.setPrefix("$")
        box.setSuffix(" per M tokens")
        return box

    def _connect_signals(self) -> None:
        for changed in (
            self.tier.currentIndexChanged,
            self.window_tokens.valueChanged,
            self.price_in.valueChanged,
            self.price_out.valueChanged,
            *(box.toggled for box in (self.vision, self.tools, self.json_schema)),
            *(box.toggled for box in self.strong.values()),
        ):
            changed.connect(self._on_figure_changed)
        self.where_box.currentIndexChanged.connect(self._on_where_box_changed)
        self.reset_button.clicked.connect(self._on_reset_button_clicked)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    # -- values ------------------------------------------------------------------------

    def where(self) -> Where:
        return Where(self.where_box.currentData())  # Qt keeps the enum as its text

    def figures(self) -> tuple[Capabilities, int]:
        """The figures as entered (and the kinds it is strong at that the dialog doesn't
        show, as they were)."""
        unshown = self.candidate.capabilities.strong_at - set(STRONG_KINDS)
        strong = {kind for kind, box in self.strong.items() if box.isChecked()} | unshown
        capabilities = Capabilities(
            self.tier.currentData(),
            vision=self.vision.isChecked(),
            tools=self.tools.isChecked(),
            json_schema=self.json_schema.isChecked(),
            strong_at=frozenset(strong),
            price_in=round(self.price_in.value(), 6),
            price_out=round(self.price_out.value(), 6),
        )
        return capabilities, self.window_tokens.value()

    def edit(self) -> ModelTableEdit:
        """What Save writes: the figures that differ from the known ones (none after
        Reset) and where the server runs (None: as its address says)."""
        where = self.where()
        known, known_window = known_figures(self.candidate.model, where)
        figures = {} if self._reset else figures_between(known, known_window, *self.figures())
        said = None if where is self.address_where else where
        return ModelTableEdit(self.candidate.model, figures, self.candidate.base_url, said)

    def _fill(self, capabilities: Capabilities, window: int) -> None:
        self._filling = True
        try:
            self.tier.setCurrentIndex(self.tier.findData(capabilities.quality))
            self.window_tokens.setValue(window)
            self.vision.setChecked(capabilities.vision)
            self.tools.setChecked(capabilities.tools)
            self.json_schema.setChecked(capabilities.json_schema)
            for kind, box in self.strong.items():
                box.setChecked(kind in capabilities.strong_at)
            self.price_in.setValue(capabilities.price_in)
            self.price_out.setValue(capabilities.price_out)
        finally:
            self._filling = False

    def _say_where(self) -> None:
        if self.candidate.base_url is None:
            text = "The built-in server runs on this computer."
        elif self.where() is self.address_where:
            text = (
                "Read from its address. A proxy that forwards to the cloud? Say so: it "
                "counts for every model there."
            )
        else:
            text = (
                f"Your word, for every model at this address (its address says "
                f"{self.address_where})."
            )
        self.where_note.setText(text)

    # -- answers from the session ------------------------------------------------------

    def refused(self, text: str) -> None:
        """Saving failed (a wrong figure, a file that can't be read): say why; the
        figures stay as entered."""
        self.save_button.setEnabled(True)
        self.error_label.setText(text)
        self.error_label.setVisible(True)

    # -- slots -------------------------------------------------------------------------

    def _on_figure_changed(self, *_args) -> None:
        if self._filling:
            return
        self._reset = False
        self._before_reset = None
        self.reset_button.setText(RESET_TEXT)

    def _on_where_box_changed(self, _index: int) -> None:
        """A price that was the known one follows where the server runs (a proxy said
        to be the cloud costs what the cloud charges; a model on the user's own
        hardware, nothing)."""
        before = known_figures(self.candidate.model, self._priced_for)[0]
        self._priced_for = self.where()
        now = known_figures(self.candidate.model, self._priced_for)[0]
        self._filling = True
        try:
            for box, was, known in (
                (self.price_in, before.price_in, now.price_in),
                (self.price_out, before.price_out, now.price_out),
            ):
                if math.isclose(box.value(), was, abs_tol=1e-9):
                    box.setValue(known)
        finally:
            self._filling = False
        self._say_where()

    def _on_reset_button_clicked(self) -> None:
        if self._before_reset is not None:  # Undo: the figures as they were
            before, self._before_reset = self._before_reset, None
            self._fill(*before)
            self._reset = False
            self.reset_button.setText(RESET_TEXT)
            return
        self._before_reset = self.figures()
        self._fill(*known_figures(self.candidate.model, self.where()))
        self._reset = True
        self.reset_button.setText(UNDO_RESET_TEXT)

    def _on_buttons_accepted(self) -> None:
        self.error_label.setVisible(False)
        self.save_button.setEnabled(False)
        self.save_requested.emit(self.edit())


def _row(*widgets: QWidget) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(10)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    return row
