"""The side panels the user hid stay hidden at the next start (and the Settings dialog's
own preferences don't bring them back)."""

from __future__ import annotations

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.preferences import load_ui_preferences
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def test_hidden_panels_are_remembered_between_runs(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def hide_memory(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        session.window.memory_action.trigger()
        assert not session.window.memory_panel.isVisible()

    run_in_session(gui_session(profile), hide_memory)
    saved = load_ui_preferences(profile.settings_path)
    assert (saved.show_conversations, saved.show_memory) == (True, False)

    async def reopened(session: AppController):
        window = session.window
        assert window.sidebar.isVisible() and not window.memory_panel.isVisible()
        assert not window.memory_action.isChecked()

    run_in_session(gui_session(profile), reopened)


def test_the_settings_dialog_keeps_the_panels_it_does_not_show(qapp):
    from acai_desktop.core.models.settings import ModelSettings
    from acai_desktop.ui.preferences import UiPreferences
    from acai_desktop.ui.widgets.settings_dialog import SettingsDialog

    saved = UiPreferences(show_conversations=False, show_memory=False)
    dialog = SettingsDialog(ModelSettings.for_preset("ollama"), preferences=saved)
    dialog.theme_box.setCurrentIndex(dialog.theme_box.findData("dark"))
    chosen = dialog.preferences()
    assert chosen.theme == "dark"
    assert (chosen.show_conversations, chosen.show_memory) == (False, False)
    dialog.close()
