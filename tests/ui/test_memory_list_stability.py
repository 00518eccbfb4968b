"""The memory panel's selection never moves under the pointer: rows inserted or removed
above keep the row under the pointer where it was, a suggestion box going away doesn't
slide the list, a removed selected row leaves nothing selected, and Delete asks before
forgetting a memory the user did not choose. Real widgets; the rows come as the core's
events would bring them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from acai_desktop.core.records.memories import (
    MemoryItem,
    MemoryKind,
    Origin,
    Suggestion,
    SuggestionStatus,
)
from acai_desktop.ui.models.memories_model import MemoriesModel, MemoryRoles
from acai_desktop.ui.theme import apply_theme
from acai_desktop.ui.widgets.memory_panel import MemoryPanel

POINTER = QPoint(60, 120)


def memory(id: int) -> MemoryItem:
    at = f"2025-01-01T10:{id:02d}:00+00:00"  # a newer memory sorts first
    return MemoryItem(id, MemoryKind.FACT, f"Memory number {id}", Origin.USER, at, at)


@pytest.fixture
def panel(qtbot, qapp):
    apply_theme(qapp)
    model = MemoriesModel()
    for id in range(1, 41):
        model.on_memory_added(memory(id))
    panel = MemoryPanel(model)
    qtbot.addWidget(panel)
    panel.resize(320, 520)
    panel.show()
    qtbot.waitExposed(panel)
    laid_out(panel, qtbot)
    return panel


def laid_out(panel: MemoryPanel, qtbot) -> None:
    """Wait for the list's layout (batched: a few rows at a time between events)."""
    last = panel.model.index(panel.model.rowCount() - 1)
    qtbot.waitUntil(lambda: panel.list.visualRect(last).isValid())


def id_at(panel: MemoryPanel, point: QPoint) -> int | None:
    return panel.list.indexAt(point).data(MemoryRoles.ID)


def click_row_under_pointer(panel: MemoryPanel, qtbot) -> int:
    viewport = panel.list.viewport()
    under = id_at(panel, POINTER)
    QTest.mouseMove(viewport, POINTER)
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=POINTER)
    chosen = panel.selected_memory_id()
    assert chosen is not None and chosen == under
    laid_out(panel, qtbot)  # the actions showing below made the list shorter
    assert id_at(panel, POINTER) == chosen
    return chosen


def scrolled_half_way(panel: MemoryPanel) -> None:
    bar = panel.list.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    assert panel.list.indexAt(QPoint(5, 1)).row() > 3  # the first rows are above


def test_a_row_removed_above_leaves_the_row_under_the_pointer_in_place(panel, qtbot):
    scrolled_half_way(panel)
    chosen = click_row_under_pointer(panel, qtbot)
    panel.model.on_memory_removed(memory(40))  # the top row, out of sight
    panel.model.on_memory_removed(memory(39))
    qtbot.waitUntil(lambda: id_at(panel, POINTER) == chosen)
    assert panel.selected_memory_id() == chosen


def test_a_row_inserted_above_leaves_the_row_under_the_pointer_in_place(panel, qtbot):
    scrolled_half_way(panel)
    chosen = click_row_under_pointer(panel, qtbot)
    panel.model.on_memory_added(memory(50))  # the newest: the first row
    qtbot.waitUntil(lambda: id_at(panel, POINTER) == chosen)
    assert panel.selected_memory_id() == chosen


def test_dismissing_a_suggestion_does_not_slide_the_list(panel, qtbot):
    waiting = Suggestion(
        1, 1, 1, "Likes tea", "preference", 0.9, SuggestionStatus.PENDING, None, ""
    )
    panel.suggestions.set_suggestions([waiting])
    qtbot.waitUntil(lambda: panel.suggestions.isVisible())
    laid_out(panel, qtbot)
    chosen = click_row_under_pointer(panel, qtbot)
    top = panel.list.viewport().mapToGlobal(
        panel.list.visualRect(panel.list.currentIndex()).topLeft()
    )
    panel.suggestions.set_suggestions([])  # what Dismiss leads to
    qtbot.waitUntil(lambda: not panel.suggestions.isVisible())
    QApplication.processEvents()
    index = panel.list.currentIndex()
    assert index.data(MemoryRoles.ID) == chosen
    assert panel.list.viewport().mapToGlobal(panel.list.visualRect(index).topLeft()) == top


def test_forgetting_the_selected_memory_selects_no_other(panel, qtbot):
    chosen = click_row_under_pointer(panel, qtbot)
    asked = []
    panel.forget_requested.connect(asked.append)
    panel.list.setFocus()
    QTest.keyClick(panel.list, Qt.Key.Key_Delete)
    assert asked == [chosen]  # chosen by the user: no question
    panel.model.on_memory_removed(memory(chosen))  # the core says it is forgotten
    assert panel.selected_memory_id() is None
    assert not panel.actions_bar.isVisible()


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_delete_on_a_memory_the_user_did_not_choose_asks_first(panel, qtbot):
    chosen = click_row_under_pointer(panel, qtbot)
    panel.model.on_memory_removed(memory(chosen))
    neighbour = panel.list.currentIndex().data(MemoryRoles.ID)
    assert neighbour is not None and neighbour != chosen
    asked = []
    panel.forget_requested.connect(asked.append)
    panel.list.setFocus()
    QTest.keyClick(panel.list, Qt.Key.Key_Delete)
    assert asked == []
    box = panel.forget_question
    assert box is not None and box.isVisible()
    assert f"Memory number {neighbour}" in box.text()
    forget = next(
        b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    )
    forget.click()
    assert asked == [neighbour]


def test_after_an_accept_the_next_suggestion_does_not_move_under_the_pointer(panel, qtbot):
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QEnterEvent
    from PySide6.QtWidgets import QPushButton

    def waiting(id: int, text: str) -> Suggestion:
        return Suggestion(id, id, 1, text, "preference", 0.9, SuggestionStatus.PENDING, None, "")

    box = panel.suggestions
    box.set_suggestions([waiting(1, "Likes tea"), waiting(2, "Has a dog called Rex")])
    qtbot.waitUntil(lambda: box.isVisible())
    laid_out(panel, qtbot)

    def remember_buttons() -> list[QPushButton]:
        return [b for b in box.findChildren(QPushButton) if b.text() == "Remember"]

    first, second = remember_buttons()
    under_pointer = first.mapToGlobal(first.rect().center())
    second_at = second.mapToGlobal(second.rect().topLeft())
    here = QPointF(box.mapFromGlobal(under_pointer))
    QApplication.sendEvent(box, QEnterEvent(here, here, QPointF(under_pointer)))
    box.set_suggestions([waiting(2, "Has a dog called Rex")])  # what Remember leads to
    QApplication.processEvents()
    laid_out(panel, qtbot)
    (still,) = remember_buttons()
    assert still.mapToGlobal(still.rect().topLeft()) == second_at  # stayed where it was
    assert not still.rect().contains(still.mapFromGlobal(under_pointer))
    # The pointer leaves: the box gives back the room of the row that went.
    height = box.height()
    QApplication.sendEvent(box, QEvent(QEvent.Type.Leave))
    qtbot.waitUntil(lambda: box.height() < height)
