"""Focus stays where the user's work is: the composer at start, and again after a button
that hides once pressed (Undo) — not on New chat."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from acai_desktop.ui.main_window import MainWindow
from acai_desktop.ui.theme import apply_theme


@pytest.fixture
def window(qtbot, qapp):
    apply_theme(qapp)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    return window


def test_the_composer_has_the_focus_at_start(window, qtbot):
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.input)


@pytest.mark.parametrize("forgets", [False, True])
def test_after_undo_the_focus_goes_back_to_the_composer(window, qtbot, forgets):
    requested = []
    window.undo.restore_requested.connect(requested.append)
    window.undo.forget_requested.connect(requested.append)
    window.offer_undo("Forgot it.", 7, forgets=forgets)
    window.undo_button.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.undo_button)
    QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
    assert requested == [7]
    assert not window.undo_button.isVisible()
    assert QApplication.focusWidget() is window.composer.input
