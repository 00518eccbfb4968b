"""The mouse wheel never changes a setting the user didn't pick (issue 40): in the real
Settings dialog, a spin box or combo box under the pointer ignores the wheel until it is
clicked or tabbed into, and the wheel scrolls the form instead. Every spin and combo box
the window builds goes through the one guard (``wheel_guard``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.ui.widgets import wheel_guard
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from tests.ui.test_budget_choice import wheel

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")

UI = Path(wheel_guard.__file__).resolve().parents[1]


def send_wheel(widget: QWidget, steps: int = -1) -> None:
    """A wheel event delivered to ``widget`` itself (``QApplication.sendEvent``)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(widget.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    QApplication.processEvents()


@pytest.fixture
def dialog(qtbot):
    settings = ModelSettings.for_preset(ProviderName.CUSTOM, base_url="http://127.0.0.1:9/v1")
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.resize(560, 420)  # shorter than the form: it scrolls, as on a small screen
    dialog.show()
    qtbot.waitExposed(dialog)
    # The budget as a number (3,000 tokens), as in the issue.
    dialog.budget.mode.setCurrentIndex(dialog.budget.mode.findData(False))
    dialog.budget.tokens.setValue(3000)
    return dialog


def _boxes(dialog: SettingsDialog) -> dict[str, QWidget]:
    return {
        "budget": dialog.budget.tokens,
        "budget mode": dialog.budget.mode,
        "embeddings": dialog.embedding_box,
        "provider": dialog.provider_fields.provider_box,
        "theme": dialog.theme_box,
        "store": dialog.store_fields.kind_box,
        "each answer from": dialog.routing_box,
        "cost ceiling": dialog.cost_ceiling,
    }


def _value(box: QWidget) -> object:
    return box.currentIndex() if isinstance(box, QComboBox) else box.value()


def test_the_wheel_over_an_unfocused_box_changes_nothing(dialog, qtbot):
    dialog.setFocus()
    for name, box in _boxes(dialog).items():
        assert not box.hasFocus(), name
        before = _value(box)
        for steps in (-1, 1, -3):
            send_wheel(box, steps)
            assert _value(box) == before, name
        assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus, name  # no focus by wheel
    assert dialog.budget.tokens.value() == 3000
    assert dialog.settings().embedding_source == "local"


def test_the_wheel_scrolls_the_form_past_the_boxes(dialog, qtbot):
    tokens = dialog.budget.tokens
    dialog.scroll.ensureWidgetVisible(tokens)
    scroll = dialog.scroll.verticalScrollBar()
    assert scroll.maximum() > 0
    scroll.setValue(scroll.maximum() // 2)
    dialog.scroll.ensureWidgetVisible(tokens)
    at = scroll.value()
    wheel(tokens, steps=1)  # up, through the window system, as the pointer rests there
    assert tokens.value() == 3000 and scroll.value() < at


def test_a_focused_box_follows_the_wheel(dialog, qtbot):
    tokens, embeddings = dialog.budget.tokens, dialog.embedding_box
    tokens.setFocus()
    qtbot.waitUntil(tokens.hasFocus)
    send_wheel(tokens, 1)
    assert tokens.value() != 3000
    embeddings.setFocus()
    qtbot.waitUntil(embeddings.hasFocus)
    before = embeddings.currentIndex()
    send_wheel(embeddings, -1)
    assert embeddings.currentIndex() != before


def test_every_box_of_the_settings_dialog_is_guarded(dialog):
    boxes = [*dialog.findChildren(QComboBox), *dialog.findChildren(QAbstractSpinBox)]
    assert len(boxes) >= 6
    unguarded = [
        box.objectName() or type(box).__name__
        for box in boxes
        if not box.findChildren(wheel_guard._WheelGuard)
    ]
    assert unguarded == []


def test_every_spin_and_combo_box_of_the_window_is_built_through_the_guard():
    """One rule, everywhere: a box built anywhere in the window's code is wrapped where it
    is built (a new dialog can't forget it without this failing)."""
    built = re.compile(r"(?<![\w.])(?:QComboBox|QSpinBox|QDoubleSpinBox|QFontComboBox)\(")
    guarded = re.compile(r"ignore_wheel_unless_focused\(\s*$")
    missing = []
    for path in sorted(UI.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for found in built.finditer(text):
            before = text[: found.start()].rsplit("\n", 1)[-1]
            if not guarded.search(before):
                line = text.count("\n", 0, found.start()) + 1
                missing.append(f"{path.relative_to(UI)}:{line}")
    assert missing == []


def test_the_cost_ceiling_is_saved_with_the_settings_and_none_means_no_limit(qtbot):
    settings = ModelSettings.for_preset(
        ProviderName.CUSTOM, base_url="http://127.0.0.1:9/v1", max_answer_cost=0.05
    )
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.cost_ceiling.value() == 0.05
    dialog.cost_ceiling.setValue(0.002)
    assert dialog.settings().max_answer_cost == 0.002
    dialog.cost_ceiling.setValue(0.0)
    assert dialog.cost_ceiling.text() == "No limit"
    assert dialog.settings().max_answer_cost is None
