"""Copy on every answer (Markdown and plain text) and each message's time on hover."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.ui.plain_text import plain_text_of
from tests.support.gui import shown_main_window

AT = "2026-03-04T05:06:00+00:00"
ANSWER = """## Steps

Use **bold** and a [link](https://example.org/doc).

1. first
2. second

```python
x = 1
y = 2
```

| A | B |
|---|---|
| 1 | 2 |
"""
PLAIN = "Steps\n\nUse bold and a link.\n\n1. first\n2. second\n\nx = 1\ny = 2\n\nA\tB\n1\t2"


@pytest.fixture
def window(qtbot, qapp):
    return shown_main_window(qtbot, qapp, size=(1200, 800))


def message(id, role="assistant", content="", status=MessageStatus.COMPLETE) -> Message:
    return Message(id, 1, role, content, status, AT)


def show(window) -> None:
    window.show_conversation(1, "Test", [message(1, "user", "How?"), message(2, content=ANSWER)])


def click(qtbot, view, row: int, action: str) -> None:
    rect = view.action_rect(row, action)
    assert rect is not None, f"no {action} on row {row}"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_copy_puts_the_answer_s_markdown_on_the_clipboard(window, qtbot):
    show(window)
    view = window.chat_view
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(view.notice_requested, timeout=1000):
        click(qtbot, view, 1, "copy")
    assert QGuiApplication.clipboard().text() == ANSWER


def test_copy_text_puts_the_answer_as_plain_text_on_the_clipboard(window, qtbot):
    show(window)
    view = window.chat_view
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(view.notice_requested, timeout=1000):
        click(qtbot, view, 1, "copy_text")
    assert QGuiApplication.clipboard().text() == PLAIN


def test_a_streaming_answer_offers_no_copy_yet(window):
    window.show_conversation(
        1,
        "Test",
        [message(1, "user", "How?"), message(2, "assistant", "So", MessageStatus.STREAMING)],
    )
    assert window.chat_view.action_rect(1, "copy") is None
    assert window.chat_view.action_rect(0, "copy") is None  # the user's own message


def test_plain_text_keeps_list_numbers_and_drops_the_marks(qapp):
    assert plain_text_of("- a **b**\n- c\n\nDone `x`.") == "- a b\n- c\n\nDone x."


def _tooltip_at(view, pos: QPoint, qtbot) -> str:
    widget = view.viewport().childAt(pos) or view.viewport()
    local = widget.mapFrom(view.viewport(), pos) if widget is not view.viewport() else pos
    event = QHelpEvent(QEvent.Type.ToolTip, local, widget.mapToGlobal(local))
    QApplication.sendEvent(widget, event)
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    return QToolTip.text()


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_hovering_a_message_shows_its_time(window, qtbot):
    show(window)
    view = window.chat_view
    local = datetime.fromisoformat(AT).astimezone().strftime("%Y-%m-%d %H:%M")
    # Over the answer's bubble, beside its text (the view answers)...
    answer = view.delegate.bubble_layout(
        view.visualRect(view.model().index(1, 0)), view.model().index(1, 0)
    )
    edge = QPoint(answer.bubble.left() + 4, answer.bubble.center().y())
    assert _tooltip_at(view, edge, qtbot) == f"Written {local}"
    QToolTip.hideText()
    # ...and over the user's text, where the reader opens (it answers the same).
    reader = view.open_reader(view.model().index(0, 0))
    centre = reader.geometry().center()
    assert _tooltip_at(view, centre, qtbot) == f"Sent {local}"
