"""Focus goes back where the user was: closing a dialog returns it to the control that
opened it, and Try again leaves it in the composer, not on whatever comes next."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import send
from tests.ui.test_chat_settings_session import answered

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


def focused():
    return QApplication.focusWidget()


async def close_with_escape(window, kind) -> None:
    dialog = await wait_until(lambda: window.findChild(kind))
    await wait_until(lambda: dialog.isVisible())
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await wait_until(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible())


def test_closing_a_dialog_gives_the_focus_back_to_its_opener(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.activateWindow()
        send(window, "Hello there")
        await answered(window, 2)
        window.chat_view.setFocus()  # the user was reading the answer
        for opener, kind in (
            (window.chat_settings_button, ChatSettingsDialog),
            (window.settings_button, SettingsDialog),
        ):
            QTest.mouseClick(opener, Qt.MouseButton.LeftButton)
            await close_with_escape(window, kind)
            # The window's focus widget: the one that has the focus once the window is
            # active again (offscreen, nothing activates it after a dialog).
            await wait_until(lambda opener=opener: window.focusWidget() is opener)

    run_in_session(gui_session(profile), scenario)


def test_try_again_leaves_the_focus_in_the_composer(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.activateWindow()
        await wait_until(lambda: session.tasks.get("check-model") is None)
        window.reconnect_button.setVisible(True)
        window.banner.setVisible(True)
        QTest.mouseClick(window.reconnect_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.model_state.text() == "● ready")
        await wait_until(lambda: focused() is window.composer.input)

    run_in_session(gui_session(profile), scenario)


def tab_cycle(window, start, key=Qt.Key.Key_Tab) -> list:
    """The controls Tab (or Shift+Tab) visits from ``start`` until it comes back."""
    start.setFocus()
    visited = [start]
    for _ in range(200):
        QTest.keyClick(focused(), key)
        if focused() is start:
            return visited
        visited.append(focused())
    raise AssertionError("Tab never came back to where it started")


def test_tab_goes_sidebar_chat_composer_panel_in_one_cycle(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.activateWindow()
        send(window, "I prefer green tea in the morning.")
        await answered(window, 2)
        await wait_until(lambda: window.conversations_model.rowCount() == 1)
        await wait_until(lambda: window.memories_model.rowCount() >= 1)
        composer = window.composer.input
        forward = tab_cycle(window, composer)
        # One stop each, in the documented order (docs/user-guide.md, Keyboard).
        documented = [
            composer,
            window.composer.attach_button,
            window.side_tabs.tabBar(),
            window.memory_panel.add_note_button,
            window.memory_panel.search,
            window.memory_panel.list,
            window.new_chat_button,
            window.conversation_list,
            window.settings_button,
            window.conversations_toggle,
            window.chat_settings_button,
            window.memory_toggle,
            window.chat_view,
        ]
        positions = [forward.index(widget) for widget in documented]
        assert positions == sorted(positions), [type(w).__name__ for w in forward]
        assert len(set(map(id, forward))) == len(forward)  # no control twice
        # From the composer the conversations are reached within the panel and sidebar.
        assert forward.index(window.conversation_list) <= 16
        backward = tab_cycle(window, composer, Qt.Key.Key_Backtab)
        assert backward == [composer, *reversed(forward[1:])]

    run_in_session(gui_session(profile), scenario)
