"""The chat's header at 640, 1024 and 1440 px: a temporary chat's badge is one word (its
meaning in a tooltip) and the title keeps its room beside it; the model's name gives way
first, cut with its whole name in a tooltip; nothing in the header is clipped, also with
a second badge (a temporary chat that is local only: the row turns compact at 640). A title
longer than its room leaves the model's name whole. Widths are compared with the labels'
own text widths, so the machine's fonts don't matter."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QLabel, QToolTip, QWidget

from acai_desktop.core.models.model_status import ModelState, ModelStatus
from acai_desktop.ui.window_panes import TITLE_KEEPS, TITLE_ROOM
from tests.support.gui import shown_main_window

TITLE = "Seattle weekend plans with the kids"
MODEL = "llama3.2:3b-instruct-q4_K_M · ollama"


# The offscreen platform can't raise the tooltip's window, and says so.
@pytest.mark.qt_log_ignore("This plugin does not support raise")
@pytest.mark.parametrize("local_only", [False, True], ids=["temporary", "and-local-only"])
@pytest.mark.parametrize("width", [640, 1024, 1440])
def test_a_temporary_chats_title_keeps_its_room(qtbot, qapp, width, local_only):
    window = shown_main_window(qtbot, qapp, size=(width, 800))
    window.show_conversation(7, TITLE, [], temporary=True)
    window.local_only_badge.setVisible(local_only)  # as the header controller shows it
    window.show_model_status(MODEL, ModelStatus(ModelState.UNREACHABLE, "down", "start it"))
    qtbot.waitUntil(lambda: window.width() == width)
    title, badge, model = window.conversation_title, window.temporary_badge, window.model_badge
    header = window.chat_header

    def settled() -> bool:
        """The row needs no more than it has (compact, if that is what fits), and its
        widgets are placed for it (not left as they were before a switch)."""
        header.layout().activate()
        return header.layout().minimumSize().width() <= header.width()

    qtbot.waitUntil(settled)
    whole_title = title.fontMetrics().horizontalAdvance(TITLE)
    # The model's name gives way first: the title has its room (or its whole text)
    # unless the name is down to its least.
    qtbot.waitUntil(
        lambda: (
            title.width() >= min(whole_title, TITLE_ROOM)
            or model.width() <= model.minimumSizeHint().width()
        )
    )

    assert title.width() >= min(whole_title, TITLE_KEEPS)
    assert badge.isVisible() and badge.width() >= badge.sizeHint().width()  # never cut
    assert "deleted when you close" in badge.toolTip()
    local = window.local_only_badge
    assert not local_only or local.width() >= local.sizeHint().width()
    for widget in header.findChildren(QWidget):
        if widget.isVisible():
            assert widget.width() >= widget.minimumSizeHint().width(), widget.objectName()
            assert widget.geometry().right() <= header.width(), widget.objectName()
    if model.is_cut():
        help_event = QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), model.mapToGlobal(QPoint(2, 2)))
        QApplication.sendEvent(model, help_event)
        assert QToolTip.text() == MODEL


def test_a_long_title_is_cut_before_the_model_name(qtbot, qapp):
    window = shown_main_window(qtbot, qapp, size=(1440, 800))
    window.show_conversation(7, "A very long title " * 8, [])
    window.show_model_status("llama3.2 · ollama", ModelStatus(ModelState.READY))
    title, model = window.conversation_title, window.model_badge
    qtbot.waitUntil(lambda: title.width() >= TITLE_ROOM and title.is_cut())
    assert not model.is_cut()


@pytest.mark.parametrize("panel", ["chats", "memory"])
def test_at_640_px_with_a_panel_open_nothing_is_cut_or_drawn_over(qtbot, qapp, panel):
    from acai_desktop.core.records.conversations import Message, MessageStatus

    window = shown_main_window(qtbot, qapp, size=(640, 800))
    at = "2026-01-01T00:00:00+00:00"
    answer = Message(
        2, 7, "assistant", "April is cherry-blossom season. " * 3, MessageStatus.COMPLETE, at
    )
    question = Message(1, 7, "user", "Where should I go in April?", MessageStatus.COMPLETE, at)
    window.show_conversation(7, "Trip to Japan", [question, answer])
    window.show_model_status(MODEL, ModelStatus(ModelState.UNREACHABLE, "down", "start it"))
    action = window.conversations_action if panel == "chats" else window.memory_action
    action.setChecked(False)
    action.setChecked(True)  # as the user opens it: the other panel folds for it
    side = window.sidebar if panel == "chats" else window.side_tabs
    qtbot.waitUntil(lambda: side.isVisible() and window.chat_header.compact)
    header = window.chat_header
    shown = [w for w in header.findChildren(QWidget) if w.isVisible() and w.parent() is header]
    for widget in shown:
        assert widget.width() >= widget.minimumSizeHint().width(), widget.objectName()
        assert widget.geometry().right() <= header.width(), widget.objectName()
    for toggle in (window.conversations_toggle, window.memory_toggle):
        assert toggle.width() >= toggle.sizeHint().width()  # "Chats", not "C…s"
    names = (window.conversations_toggle.accessibleName(), window.memory_toggle.accessibleName())
    assert names == ("Chats", "Memory")  # glyphs on screen, words for a screen reader
    boxes = sorted((w.geometry() for w in shown), key=lambda box: box.left())
    for left, right in itertools.pairwise(boxes):
        assert left.right() < right.left()  # the title never runs under the next one
    assert MODEL in window.model_state.toolTip()  # the name, hidden, is still told
    if panel == "chats":
        labels = [label for label in window.sidebar.findChildren(QLabel) if not label.wordWrap()]
        for whole in (window.new_project_button, *labels):
            if whole.isVisible() and whole.text():
                assert whole.width() >= whole.sizeHint().width(), whole.text()
    view = window.chat_view
    qtbot.waitUntil(lambda: view.action_rect(1, "copy") is not None)
    for action_name in ("regenerate", "copy", "copy_text"):
        rect = view.action_rect(1, action_name)
        assert rect is not None and view.viewport().rect().contains(rect), action_name
