"""Settings → Your models: every chat model the user can reach, with what is known of it
(issue 42, item 1): where it runs, its window, whether it sees images, its tier, its
price and its speed as measured on this computer; and the user's own figures for each
(Edit…: ``model_figures_dialog``, saved in ``model-table.json``).

Listing asks the servers what they offer (the configured provider, the model servers
on this computer, OpenAI when a key is kept), so it runs when asked, not when Settings
opens; the answer comes back through :meth:`ModelsList.show_listing`. A model's figures
are saved by the session (``figures_save_requested``), which answers through
:meth:`ModelsList.figures_saved` or :meth:`ModelsList.figures_refused`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.models.context_window import short_tokens
from acai_desktop.core.routing.model_table import ModelTable
from acai_desktop.core.routing.selection import Candidate, Where
from acai_desktop.ui.untrusted import plain_label, tooltip_text
from acai_desktop.ui.widgets.model_figures_dialog import ModelFiguresDialog

if TYPE_CHECKING:  # listing needs the model client (openai): loaded when it runs
    from acai_desktop.core.routing.reachable import ModelListing

LIST_BUTTON_TEXT = "List my models"
EDIT_BUTTON_TEXT = "Edit…"
WHERE_TEXT = {
    Where.THIS_COMPUTER: "this computer",
    Where.LOCAL_NETWORK: "the local network",
    Where.CLOUD: "the cloud",
}
#: Models shown before the list scrolls.
VISIBLE_ROWS = 4
#: Each row's place in the listing (its candidate).
ROW_ROLE = Qt.ItemDataRole.UserRole + 1


def model_text(candidate: Candidate, table: ModelTable | None = None) -> str:
    """Two lines: what the model is and can do, then what it costs and how fast it was.

    ``qwen2.5-coder:7b — on this computer, 32k window, tools, tier 3 of 5, strong at code``
    ``Free · measured here: 0.4 s to first words, 42 tokens/s, 0% failed (12 calls)``

    With the user's ``table``, figures of their own say so ("your figures"), and so does
    their word on where the server runs.
    """
    table = table or ModelTable()
    caps = candidate.capabilities
    said = " (your word)" if table.said_where(candidate.base_url) else ""
    facts = [
        f"on {WHERE_TEXT[candidate.where]}{said}",
        f"{short_tokens(candidate.window_tokens)} window",
    ]
    facts += [name for name, yes in (("sees images", caps.vision), ("tools", caps.tools)) if yes]
    facts.append(f"tier {caps.quality} of 5" + ("" if caps.known else " (guessed)"))
    if caps.strong_at:
        facts.append("strong at " + " and ".join(sorted(caps.strong_at)))
    if table.entry_for(candidate.model) is not None:
        facts.append("your figures")
    price = (
        f"${caps.price_in:g} in, ${caps.price_out:g} out per M tokens" if caps.price_out else "Free"
    )
    speed = candidate.measured
    measured = (
        f"measured here: {speed.first_token_seconds:.1f} s to first words, "
        f"{speed.tokens_per_second:.0f} tokens/s, {speed.error_rate:.0%} failed "
        f"({speed.calls} call{'s' if speed.calls != 1 else ''})"
        if speed
        else "not measured yet"
    )
    return f"{candidate.model} — {', '.join(facts)}\n{price} · {measured}"


class ModelsList(QWidget):
    list_requested = Signal()
    #: A model's figures as the user saved them (a ModelTableEdit).
    figures_save_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list_button = QPushButton(LIST_BUTTON_TEXT)
        self.list_button.setToolTip(
            "Ask your providers and the model servers on this computer which models they "
            "offer. Nothing is sent to a model."
        )
        self.list_button.clicked.connect(self._request)
        self.status = plain_label("")
        self.status.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Your models")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setWordWrap(True)
        # Long lines wrap to the dialog's width rather than scroll sideways.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.hide()
        self.edit_button = QPushButton(EDIT_BUTTON_TEXT)
        self.edit_button.setToolTip(
            "Your figures for the chosen model: its tier, window, what it can do, its "
            "price, and where its server runs (also: double-click a model)"
        )
        self.edit_button.setEnabled(False)
        self.edit_button.hide()
        #: What the last listing found (None: not listed yet).
        self.listing: ModelListing | None = None
        #: The open figures dialog (None: none).
        self.editor: ModelFiguresDialog | None = None
        buttons = QHBoxLayout()
        buttons.addWidget(self.list_button)
        buttons.addWidget(self.edit_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.list)
        self.list.itemSelectionChanged.connect(self._on_list_selection_changed)
        self.list.itemActivated.connect(self._on_list_item_activated)
        self.edit_button.clicked.connect(self._on_edit_button_clicked)

    def _request(self) -> None:
        self.list_button.setEnabled(False)
        self.status.setText("Asking your providers and this computer's model servers…")
        self.list_requested.emit()

    def show_listing(self, listing: ModelListing) -> None:
        self.list_button.setEnabled(True)
        self.listing = listing
        candidates = listing.candidates
        self.list.clear()
        for row, candidate in enumerate(candidates):
            item = QListWidgetItem(model_text(candidate, listing.table))
            item.setToolTip(tooltip_text(f"{candidate.model} — {candidate.provider}"))
            item.setData(ROW_ROLE, row)
            self.list.addItem(item)
        self.list.setVisible(bool(candidates))
        self.edit_button.setVisible(bool(candidates))
        self.edit_button.setEnabled(False)
        if candidates:
            rows = sum(
                self.list.sizeHintForRow(r) for r in range(min(len(candidates), VISIBLE_ROWS))
            )
            self.list.setFixedHeight(rows + 2 * self.list.frameWidth() + 4)
        counts = f"{len(candidates)} model{'s' if len(candidates) != 1 else ''} you can reach."
        self.status.setText(
            " ".join([counts if candidates else "No chat model answered.", *listing.problems])
        )

    def show_error(self, text: str) -> None:
        self.list_button.setEnabled(True)
        self.status.setText(text)

    # -- a model's figures ---------------------------------------------------------------

    def selected(self) -> Candidate | None:
        items = self.list.selectedItems()
        if not items or self.listing is None:
            return None
        return self.listing.candidates[items[0].data(ROW_ROLE)]

    def edit_figures(self, candidate: Candidate) -> ModelFiguresDialog:
        """Open the figures dialog for ``candidate`` (one at a time)."""
        assert self.listing is not None
        if self.editor is not None and shiboken6.isValid(self.editor):
            self.editor.close()
        self.editor = ModelFiguresDialog(candidate, self.listing.table, self.window())
        self.editor.save_requested.connect(self.figures_save_requested)
        self.editor.open()
        return self.editor

    def figures_saved(self, listing: ModelListing, saved: str) -> None:
        """The figures of the model named ``saved`` are written: the dialog closes and
        the list shows ``listing`` (read again), that model chosen."""
        if self.editor is not None and shiboken6.isValid(self.editor):
            self.editor.accept()
        self.editor = None
        self.show_listing(listing)
        for row in range(self.list.count()):
            if listing.candidates[row].model == saved:
                self.list.setCurrentRow(row)
                self.list.scrollToItem(self.list.item(row))
                break
        self.status.setText(
            f"Saved in model-table.json: {saved}. The next answer that routes uses it. "
            + self.status.text()
        )

    def figures_refused(self, text: str) -> None:
        if self.editor is not None and shiboken6.isValid(self.editor):
            self.editor.refused(text)

    def _on_list_selection_changed(self) -> None:
        self.edit_button.setEnabled(self.selected() is not None)

    def _on_list_item_activated(self, _item: QListWidgetItem) -> None:
        if (candidate := self.selected()) is not None:
            self.edit_figures(candidate)

    def _on_edit_button_clicked(self) -> None:
        if (candidate := self.selected()) is not None:
            self.edit_figures(candidate)
