"""Every Tab stop of the main window shows a focus ring, in the dark theme and the light:
the focused control gains a line in the theme's focus colour that it lacks unfocused
(Fusion's faint inner rectangle or a text cursor alone don't count). Colours are compared,
never text, so the machine's fonts don't matter."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from acai_desktop.core.records.conversations import Conversation, Message, MessageStatus
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, Origin
from acai_desktop.ui.main_window import MainWindow
from acai_desktop.ui.theme import apply_theme, load_theme

AT = "2025-01-02T10:00:00+00:00"
#: A ring a pixel wide along one short edge of the smallest button is longer than this.
MIN_RING_PIXELS = 40
#: How far (sum over R, G, B) a pixel may be from the focus colour and still count.
TOLERANCE = 30


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    array = np.frombuffer(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine() // 4, 4
    )
    return array[:, : image.width(), :3].astype(int)  # B, G, R


def ring_coloured(image: QImage, colour) -> np.ndarray:
    bgr = np.array([colour.blue(), colour.green(), colour.red()])
    return np.abs(pixels(image) - bgr).sum(axis=2) <= TOLERANCE


def filled_window(qtbot, qapp, theme: str) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.set_theme(apply_theme(qapp, theme))  # the painted parts (the chat) too
    window.conversations_model.set_conversations([Conversation(1, "Trip plans", AT, AT)])
    window.memories_model.on_memory_added(
        MemoryItem(1, MemoryKind.FACT, "Allergic to peanuts", Origin.USER, AT, AT)
    )
    window.show_conversation(
        1,
        "Trip plans",
        [
            Message(1, 1, "user", "Where should I go?", MessageStatus.COMPLETE, AT),
            Message(2, 1, "assistant", "Somewhere warm.", MessageStatus.COMPLETE, AT),
        ],
    )
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    return window


def ring_owner(window: MainWindow, widget: QWidget) -> QWidget:
    # The composer's input has no frame of its own: the composer box shows its focus.
    return window.composer if widget is window.composer.input else widget


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_every_tab_stop_shows_a_focus_ring(qtbot, qapp, theme):
    window = filled_window(qtbot, qapp, theme)
    colour = load_theme(theme).color("focus_ring")
    window.composer.input.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.input)
    stops: list[QWidget] = []
    without_ring = []
    for _ in range(40):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        widget = QApplication.focusWidget()
        if widget in stops:
            break
        stops.append(widget)
        owner = ring_owner(window, widget)
        focused = owner.grab().toImage()
        widget.clearFocus()
        unfocused = owner.grab().toImage()
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        gained = ring_coloured(focused, colour) & ~ring_coloured(unfocused, colour)
        if gained.sum() < MIN_RING_PIXELS:
            name = widget.accessibleName() or widget.objectName() or repr(widget)
            without_ring.append((name, int(gained.sum())))
    assert len(stops) >= 12, [w.objectName() for w in stops]
    assert window.chat_view in stops and window.conversation_list in stops
    assert window.memory_panel.list in stops and window.composer.input in stops
    assert without_ring == [], without_ring
