"""The main window with real widgets on Qt's offscreen platform."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from acai_desktop.ui.widgets.memory_panel import EMPTY_TITLE as MEMORY_EMPTY_TITLE
from acai_desktop.ui.window_panes import TRANSCRIPT_EMPTY_TITLE


def visible_texts(widget) -> set[str]:
    from PySide6.QtWidgets import QLabel

    return {label.text() for label in widget.findChildren(QLabel) if label.isVisible()}


def test_window_shows_three_areas_with_empty_states(window):
    assert window.windowTitle() == "ACAI Desktop"
    texts = visible_texts(window)
    assert TRANSCRIPT_EMPTY_TITLE in texts
    assert MEMORY_EMPTY_TITLE in texts
    assert "No conversations yet" in texts
    assert window.sidebar.isVisible()
    assert window.memory_panel.isVisible()
    # Left to right: conversations, chat, memory (the first tab of the side panel).
    assert window.sidebar.x() < window.chat_pane.x() < window.side_tabs.x()
    assert window.side_tabs.currentWidget() is window.memory_panel
    assert window.composer.input.placeholderText()
    assert window.memory_search.placeholderText() == "Search memories"


def test_idle_composer_shows_send_and_hides_stop(window):
    composer = window.composer
    assert composer.send_button.isVisible()
    assert not composer.stop_button.isVisible()
    assert not composer.send_button.isEnabled()  # nothing typed yet
    composer.input.setPlainText("   \n  ")
    assert not composer.send_button.isEnabled()  # whitespace is not a message
    composer.input.setPlainText("hello")
    assert composer.send_button.isEnabled()


def test_send_button_emits_trimmed_text_and_clears_only_once_committed(window, qtbot):
    window.composer.input.setPlainText("  What should I use for my backend?\n")
    with qtbot.waitSignal(window.composer.send_requested, timeout=1000) as blocker:
        qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["What should I use for my backend?"]
    # Not yet on disk: a refused message must still be there to fix.
    assert window.composer.text() == "  What should I use for my backend?\n"
    window.composer.clear_sent("What should I use for my backend?")
    assert window.composer.text() == ""


def _focus_composer(window, qtbot):
    window.activateWindow()
    window.composer.input.setFocus()
    qtbot.waitUntil(window.composer.input.hasFocus, timeout=2000)


def test_enter_sends_and_shift_enter_makes_a_new_line(window, qtbot):
    composer = window.composer
    _focus_composer(window, qtbot)
    assert composer.hint_label.text().startswith("Enter to send")
    qtbot.keyClicks(composer.input, "first line")
    with qtbot.assertNotEmitted(window.composer.send_requested):
        qtbot.keyClick(composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.input, "second line")
    assert composer.text() == "first line\nsecond line"
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        composer.input.setPlainText(f"sent with {key.name}")
        with qtbot.waitSignal(window.composer.send_requested, timeout=1000) as blocker:
            qtbot.keyClick(composer.input, key)
        assert blocker.args == [f"sent with {key.name}"]
    # Ctrl+Enter sends too (the habit of the previous versions).
    composer.input.setPlainText("sent with Ctrl+Enter")
    with qtbot.waitSignal(window.composer.send_requested, timeout=1000) as blocker:
        qtbot.keyClick(composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == ["sent with Ctrl+Enter"]


def test_with_enter_sends_off_enter_makes_a_new_line_and_ctrl_enter_sends(window, qtbot):
    composer = window.composer
    window.set_enter_sends(False)
    _focus_composer(window, qtbot)
    assert composer.hint_label.text().startswith("Ctrl+Enter to send")
    qtbot.keyClicks(composer.input, "first line")
    with qtbot.assertNotEmitted(window.composer.send_requested):
        qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    qtbot.keyClicks(composer.input, "second line")
    assert composer.text() == "first line\nsecond line"
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        composer.input.setPlainText(f"sent with {key.name}")
        with qtbot.waitSignal(window.composer.send_requested, timeout=1000) as blocker:
            qtbot.keyClick(composer.input, key, Qt.KeyboardModifier.ControlModifier)
        assert blocker.args == [f"sent with {key.name}"]


def test_esc_stops_a_streaming_answer_and_only_then(window, qtbot):
    _focus_composer(window, qtbot)
    with qtbot.assertNotEmitted(window.stop_action.triggered):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
    window.set_busy(True)
    with qtbot.waitSignal(window.stop_action.triggered, timeout=1000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
    window.set_busy(False)


def test_busy_shows_stop_which_requests_stop(window, qtbot):
    composer = window.composer
    composer.input.setPlainText("typed while the answer streams")
    window.set_busy(True)
    assert composer.stop_button.isVisible()
    assert not composer.send_button.isVisible()
    with qtbot.assertNotEmitted(window.composer.send_requested):
        qtbot.keyClick(composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(composer.stop_requested, timeout=1000):
        qtbot.mouseClick(composer.stop_button, Qt.MouseButton.LeftButton)
    window.set_busy(False)
    assert not composer.stop_button.isVisible()
    assert composer.send_button.isVisible() and composer.send_button.isEnabled()
    assert composer.text() == "typed while the answer streams"


def test_suggestion_fills_the_composer_without_sending(window, qtbot):
    button = window.suggestion_buttons[0]
    with qtbot.assertNotEmitted(window.composer.send_requested):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.composer.text() == button.property("suggestion")


def test_requests_from_sidebar_and_memory_panel(window, qtbot):
    with qtbot.waitSignal(window.new_chat_button.clicked, timeout=1000):
        qtbot.mouseClick(window.new_chat_button, Qt.MouseButton.LeftButton)
    # The panel searches by words by itself as the user types (the core's rule, through
    # its model), and asks the session for the memories close in meaning.
    with qtbot.waitSignal(window.memory_panel.search_requested, timeout=2000) as asked:
        qtbot.keyClicks(window.memory_search, "py")
    assert window.memories_model.query.text == "py"
    assert asked.args[0].text == "py"


def test_model_name_and_title_are_shown(window):
    window.set_model_name("smollm2 (local)")
    assert window.model_badge.text() == "smollm2 (local)"
    window.set_model_name(None)
    assert window.model_badge.text() == "No model connected"
    window.set_conversation_title("Backend choices")
    assert window.conversation_title.text() == "Backend choices"


def test_closing_the_window_requests_quit_once(window, qtbot):
    with qtbot.waitSignal(window.quit_requested, timeout=1000):
        window.close()
    assert not window.isVisible()
    with qtbot.assertNotEmitted(window.quit_requested):
        window.close()


def test_quit_shortcut_closes_the_window(window, qtbot):
    with qtbot.waitSignal(window.quit_requested, timeout=1000):
        window.quit_action.trigger()


def test_tab_reaches_the_chat_between_its_header_and_the_composer(window, qtbot):
    from acai_desktop.core.records.conversations import Message, MessageStatus

    at = "2026-01-01T00:00:00+00:00"
    window.show_conversation(1, "Chat", [Message(1, 1, "user", "hi", MessageStatus.COMPLETE, at)])
    window.activateWindow()
    window.memory_toggle.setFocus()  # the header's last control
    qtbot.waitUntil(window.memory_toggle.hasFocus, timeout=2000)
    qtbot.keyClick(window.memory_toggle, Qt.Key.Key_Tab)
    assert window.chat_view.hasFocus()
    assert window.chat_view.currentIndex().row() == 0  # lands on the latest message
    qtbot.keyClick(window.chat_view, Qt.Key.Key_Tab)
    assert window.composer.input.hasFocus()


def test_every_control_has_an_accessible_name(window):
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QComboBox,
        QLineEdit,
        QPlainTextEdit,
    )

    kinds = (QAbstractButton, QAbstractItemView, QComboBox, QLineEdit, QPlainTextEdit)

    def part_of_another_control(widget) -> bool:
        # A combo box's popup list, a line edit's clear button: named by their owner.
        parent = widget.parent()
        while parent is not None:
            if isinstance(parent, (QComboBox, QLineEdit)):
                return True
            parent = parent.parent()
        return False

    unnamed = [
        widget.objectName() or type(widget).__name__
        for widget in window.findChildren(QWidget)
        if isinstance(widget, kinds)
        and not (widget.accessibleName() or getattr(widget, "text", lambda: "")())
        and not part_of_another_control(widget)
    ]
    assert unnamed == []


def test_the_composer_grows_with_its_text_up_to_ten_lines(window, qtbot):
    from acai_desktop.ui.widgets.composer import INPUT_HEIGHT

    field = window.composer.input
    assert field.height() == INPUT_HEIGHT
    field.setPlainText("\n".join(f"line {n}" for n in range(6)))
    six_lines = field.height()
    assert six_lines > INPUT_HEIGHT
    field.setPlainText("\n".join(f"line {n}" for n in range(40)))
    tallest = field.height()
    assert tallest > six_lines
    field.setPlainText("\n".join(f"line {n}" for n in range(80)))
    assert field.height() == tallest  # from ten lines on, it scrolls
    assert field.verticalScrollBar().maximum() > 0
    field.clear()
    assert field.height() == INPUT_HEIGHT


def test_side_panels_hide_and_show_from_the_keyboard_and_the_header(window, qtbot):
    assert window.minimumWidth() <= 683  # half of a 1366-pixel laptop screen
    changes = []
    window.panels_changed.connect(lambda *shown: changes.append(shown))
    window.conversations_action.trigger()  # Ctrl+B
    assert not window.sidebar.isVisible() and window.memory_panel.isVisible()
    window.memory_toggle.click()
    assert not window.memory_panel.isVisible()
    window.conversations_toggle.click()
    assert window.sidebar.isVisible()
    assert changes == [(False, True), (False, False), (True, False)]
    window.set_panels(True, True)  # as saved: no change announced
    assert window.memory_panel.isVisible() and changes[-1] == (True, False)
    assert window.conversations_action.shortcut().toString() == "Ctrl+B"
    assert window.memory_action.shortcut().toString() == "Ctrl+Shift+M"


def test_a_long_mixed_script_title_is_cut_not_widening_the_window(window, qtbot):
    before = (window.sidebar.width(), window.memory_panel.width(), window.minimumSizeHint())
    title = "会議のメモ と مذكرات الاجتماع " * 12
    window.set_conversation_title(title)
    qtbot.wait(10)
    assert window.conversation_title.text() == title  # whole, for the tooltip and tests
    assert window.conversation_title.shown_text().endswith("…")
    after = (window.sidebar.width(), window.memory_panel.width(), window.minimumSizeHint())
    assert after == before
    assert window.memory_panel.search.isVisible() and window.memory_panel.search.width() > 60
