"""The sidebar's highlight stays on the open chat: after ⋯ (or a right-click) on another
row, and after another chat is deleted above it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from acai_desktop.core.records.conversations import Conversation
from acai_desktop.ui.models.conversations_model import ConversationRoles, ConversationsModel
from acai_desktop.ui.widgets.conversation_list import ConversationList, more_rect


def chat(id: int, day: int) -> Conversation:
    at = f"2025-01-0{day}T10:00:00+00:00"
    return Conversation(id, f"Chat {id}", at, at)


@pytest.fixture
def listing(qtbot):
    model = ConversationsModel()
    model.set_conversations([chat(1, 3), chat(2, 2), chat(3, 1)])  # newest first
    view = ConversationList()
    view.setModel(model)
    view.resize(260, 300)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view, model


def highlighted(view) -> list[int]:
    return [i.data(ConversationRoles.ID) for i in view.selectionModel().selectedIndexes()]


# The offscreen platform can't raise a popup or grab the keyboard for it, and says so.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_a_menu_on_another_row_leaves_the_highlight_on_the_open_chat(listing):
    view, model = listing
    view.select_conversation(3)
    third = view.visualRect(model.index(2))
    more = more_rect(view.visualRect(model.index(0))).center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=more)
    assert view.menu is not None
    view.menu.close()
    assert highlighted(view) == [3]
    QTest.mousePress(view.viewport(), Qt.MouseButton.RightButton, pos=QPoint(20, 5 + third.top()))
    assert highlighted(view) == [3]


def test_deleting_a_chat_above_keeps_the_highlight_on_the_open_one(listing):
    view, model = listing
    view.select_conversation(3)
    model.on_conversation_removed(1)
    assert highlighted(view) == [3]
    view.select_conversation(None)
    assert highlighted(view) == []
