"""What the settings dialog's fields say: labels, tips, placeholders, and the texts made
from a validation error or a detection report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QLabel,
)

from acai_desktop.core.models.presets import (
    BUNDLED_LOCAL_MODEL,
    ModelRole,
    preset,
)
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

if TYPE_CHECKING:  # detection needs the model client (openai): loaded when it runs
    from acai_desktop.core.models.detection import DetectionReport


ROLE_LABELS = {
    ModelRole.CHAT: "Chat",
    ModelRole.TRIAGE: "Triage",
    ModelRole.EXTRACTION: "Extraction",
    ModelRole.SUMMARY: "Summary",
    ModelRole.EMBEDDING: "Embedding",
}
ROLE_TIPS = {
    ModelRole.CHAT: "Answers your messages",
    ModelRole.TRIAGE: "Decides quickly whether a message holds something worth remembering",
    ModelRole.EXTRACTION: "Writes the facts worth remembering",
    ModelRole.SUMMARY: "Summarises older parts of long chats",
    ModelRole.EMBEDDING: "Used only when embeddings come from the provider",
}
EMBEDDING_SOURCES = {
    "local": "On this computer (WordLlama, offline)",
    "provider": "The provider's embedding model",
}
LOCAL_MODEL_PLACEHOLDER = f"Bundled {BUNDLED_LOCAL_MODEL} (default)"
NO_KEY_PLACEHOLDER = "Not needed for most local servers"
KEY_STORED_PLACEHOLDER = "Stored — leave empty to keep it"
KEY_MISSING_PLACEHOLDER = "Paste your API key"
KEY_FILE_NOTE = "⚠ No system keyring: the key is kept in a file only you can read."


def hint(text: str = "") -> QLabel:
    # One line each, no word wrap: a wrapped label in a form is sized before its width
    # is known and gets clipped.
    # Plain: a hint may show what a server answered (its address, its model names).
    return plain_label(text, "DialogNote")


def validation_text(error: ValidationError) -> str:
    names = {"context_budget_tokens": "Context budget", "base_url": "Base URL"}
    problems = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        problems.append(f"{names.get(field, field.replace('_', ' '))}: {item['msg']}")
    return "; ".join(problems)


def detection_text(report: DetectionReport) -> str:
    """What detection found, a line per server (with its first models) and per option."""
    lines = []
    for probe in report.reachable:
        listed = ", ".join(probe.models[:3]) + (" …" if len(probe.models) > 3 else "")
        label = preset(probe.provider).label.split(" (")[0]
        lines.append(f"✓ {label} at {probe.base_url}")
        lines.append(f"    models: {listed or 'none listed'}")
    if report.openai_key_set:
        lines.append("✓ OPENAI_API_KEY is set")
    if report.local_extra_installed and report.bundled_model is not None:
        lines.append("✓ The built-in Local model is installed")
    if not report.reachable:
        lines.insert(0, "No model server answered.")
    return "\n".join(lines)


class AskBeforeRememberingBox(QCheckBox):
    """ "Ask before remembering": until the user ticks or unticks it, it shows the chosen
    model's default, and saves no choice (so the default follows a later model change)."""

    def __init__(self, saved: bool | None) -> None:
        super().__init__("Ask before remembering new facts")
        self.setToolTip(
            "New facts about you wait in the memory panel until you say Remember. On by "
            "default with the small built-in model, which sometimes misreads a message."
        )
        self.saved = saved
        self.touched = False
        self.clicked.connect(self._on_clicked)  # the user's click, not setChecked

    def follow_default(self, default: bool) -> None:
        if not self.touched and self.saved is None:
            self.setChecked(default)

    def choice(self) -> bool | None:
        return self.isChecked() if self.touched or self.saved is not None else None

    @Slot(bool)
    def _on_clicked(self, _checked: bool) -> None:
        self.touched = True


#: The cost ceiling's "none": the spin box's least value, shown as words.
NO_COST_CEILING = "No limit"


def cost_ceiling_box(dollars: float | None) -> QDoubleSpinBox:
    """The most a routed answer may cost, in dollars; its least value means no limit
    (the router then leaves no model out for its price)."""
    box = ignore_wheel_unless_focused(QDoubleSpinBox())
    box.setAccessibleName("Most an answer may cost")
    box.setRange(0.0, 100.0)
    box.setDecimals(3)
    box.setSingleStep(0.01)
    box.setPrefix("$")
    box.setSuffix(" per answer")
    box.setSpecialValueText(NO_COST_CEILING)
    box.setToolTip(
        "When answers are routed, a model whose answer would cost more than this (by its "
        "price and the answer's expected length) is left out. Models on your own "
        "hardware cost nothing."
    )
    box.setValue(dollars or 0.0)
    return box


def cost_ceiling_of(box: QDoubleSpinBox) -> float | None:
    return box.value() or None
