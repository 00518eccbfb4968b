"""Settings → Your models: every chat model the user can reach, with what is known of it
(issue 42, item 1): where it runs, its window, whether it sees images, its tier, its
price and its speed as measured on this computer.

Listing asks the servers what they offer (the configured provider, the model servers
on this computer, OpenAI when a key is kept), so it runs when asked, not when Settings
opens; the answer comes back through :meth:`ModelsList.show_models`.
"""

from __future__ import annotations

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
from acai_desktop.core.routing.selection import Candidate, Where
from acai_desktop.ui.untrusted import plain_label

LIST_BUTTON_TEXT = "List my models"
WHERE_TEXT = {
    Where.THIS_COMPUTER: "this computer",
    Where.LOCAL_NETWORK: "the local network",
    Where.CLOUD: "the cloud",
}
#: Models shown before the list scrolls.
VISIBLE_ROWS = 4


def model_text(candidate: Candidate) -> str:
    """Two lines: what the model is and can do, then what it costs and how fast it was.

    ``qwen2.5-coder:7b — on this computer, 32k window, tools, tier 3 of 5, strong at code``
    ``Free · measured here: 0.4 s to first words, 42 tokens/s, 0% failed (12 calls)``
    """
    caps = candidate.capabilities
    facts = [f"on {WHERE_TEXT[candidate.where]}", f"{short_tokens(candidate.window_tokens)} window"]
    facts += [name for name, yes in (("sees images", caps.vision), ("tools", caps.tools)) if yes]
    facts.append(f"tier {caps.quality} of 5" + ("" if caps.known else " (guessed)"))
    if caps.strong_at:
        facts.append("strong at " + " and ".join(sorted(caps.strong_at)))
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
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setWordWrap(True)
        # Long lines wrap to the dialog's width rather than scroll sideways.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.list_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.list)

    def _request(self) -> None:
        self.list_button.setEnabled(False)
        self.status.setText("Asking your providers and this computer's model servers…")
        self.list_requested.emit()

    def show_models(self, candidates: list[Candidate], problems: list[str]) -> None:
        self.list_button.setEnabled(True)
        self.list.clear()
        for candidate in candidates:
            item = QListWidgetItem(model_text(candidate))
            item.setToolTip(f"{candidate.model} — {candidate.provider}")
            self.list.addItem(item)
        self.list.setVisible(bool(candidates))
        if candidates:
            rows = sum(
                self.list.sizeHintForRow(r) for r in range(min(len(candidates), VISIBLE_ROWS))
            )
            self.list.setFixedHeight(rows + 2 * self.list.frameWidth() + 4)
        counts = f"{len(candidates)} model{'s' if len(candidates) != 1 else ''} you can reach."
        self.status.setText(
            " ".join([counts if candidates else "No chat model answered.", *problems])
        )

    def show_error(self, text: str) -> None:
        self.list_button.setEnabled(True)
        self.status.setText(text)
