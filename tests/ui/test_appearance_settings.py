"""Appearance in Settings: Light / Dark / System and whether Enter sends, saved with the
profile beside the model settings."""

from __future__ import annotations

import json

from acai_desktop.core.models.settings import (
    ModelSettings,
    load_model_settings,
    save_model_settings,
)
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences, save_ui_preferences
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog


def test_the_dialog_offers_theme_and_enter_and_announces_them_on_save(qtbot):
    dialog = SettingsDialog(
        ModelSettings(), preferences=UiPreferences(theme="dark", enter_sends=False)
    )
    qtbot.addWidget(dialog)
    assert dialog.theme_box.currentData() == "dark"
    assert not dialog.enter_sends_box.isChecked()
    assert [dialog.theme_box.itemData(i) for i in range(dialog.theme_box.count())] == [
        "system",
        "light",
        "dark",
    ]
    dialog.theme_box.setCurrentIndex(dialog.theme_box.findData("system"))
    dialog.enter_sends_box.setChecked(True)
    with qtbot.waitSignal(dialog.preferences_save_requested, timeout=1000) as blocker:
        dialog.save_button.click()
    assert blocker.args == [UiPreferences(theme="system", enter_sends=True)]


def test_preferences_live_beside_the_model_settings_in_one_file(tmp_path):
    path = tmp_path / "settings.json"
    assert load_ui_preferences(path) == UiPreferences()  # nothing saved: the defaults
    save_model_settings(path, ModelSettings())
    save_ui_preferences(path, UiPreferences(theme="light", enter_sends=False))
    assert load_model_settings(path) == ModelSettings()
    assert load_ui_preferences(path) == UiPreferences(theme="light", enter_sends=False)
    data = json.loads(path.read_text())
    data["ui"] = {"theme": "purple", "enter_sends": "yes"}  # damaged by hand
    path.write_text(json.dumps(data))
    assert load_ui_preferences(path) == UiPreferences()
