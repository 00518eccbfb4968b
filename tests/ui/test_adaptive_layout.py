"""Below the width where three panes fit, the side panels fold by themselves (the memory
panel first) and come back with room; nothing in the header is cut."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QLabel

from acai_desktop.ui.side_panels import CHAT_MIN_WIDTH


def resize(window, qtbot, width: int) -> None:
    window.resize(width, 760)
    qtbot.waitUntil(lambda: window.width() == width)
    qtbot.wait(20)  # let the layouts settle


def clipped_header_items(window) -> list[str]:
    """Buttons and badges in the chat's header drawn narrower than their text needs."""
    header = window.conversation_title.parentWidget()
    cut = []
    for widget in header.findChildren(QAbstractButton) + header.findChildren(QLabel):
        if not widget.isVisible() or widget is window.conversation_title:
            continue  # the title is cut with "…" on purpose (its tooltip has it whole)
        if widget.width() < widget.sizeHint().width():
            cut.append(widget.text())
    return cut


def test_side_panels_fold_when_narrow_and_come_back_with_room(window, qtbot):
    changes = []
    window.panels_changed.connect(lambda *shown: changes.append(shown))
    resize(window, qtbot, 1440)
    assert window.sidebar.isVisible() and window.side_tabs.isVisible()

    resize(window, qtbot, 1024)  # three panes don't fit: the memory panel folds
    assert window.sidebar.isVisible() and not window.side_tabs.isVisible()
    assert window.chat_pane.width() >= CHAT_MIN_WIDTH
    assert not window.memory_action.isChecked()  # the toggle says what shows

    resize(window, qtbot, 640)  # the conversations fold too
    assert not window.sidebar.isVisible() and not window.side_tabs.isVisible()
    assert window.chat_pane.width() == window.centralWidget().width()
    assert clipped_header_items(window) == []

    resize(window, qtbot, 1440)  # room again: both come back
    assert window.sidebar.isVisible() and window.side_tabs.isVisible()
    assert changes == []  # folding is not the user's choice: nothing is saved


def test_a_panel_opened_by_hand_when_narrow_shows_and_the_other_folds(window, qtbot):
    resize(window, qtbot, 1024)
    assert not window.side_tabs.isVisible()
    window.memory_toggle.click()  # the user wants the memories now
    assert window.side_tabs.isVisible() and not window.sidebar.isVisible()
    assert window.chat_pane.width() >= CHAT_MIN_WIDTH
    window.conversations_toggle.click()
    assert window.sidebar.isVisible() and not window.side_tabs.isVisible()


def test_panels_the_user_hid_stay_hidden_when_room_comes_back(window, qtbot):
    window.set_panels(True, False)
    resize(window, qtbot, 640)
    resize(window, qtbot, 1440)
    assert window.sidebar.isVisible() and not window.side_tabs.isVisible()
