"""Settings → Your models in the real window (issue 42, item 1): the models the user can
reach, asked of a scripted provider over HTTP, with what is known and measured of each."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.settings import load_model_settings
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def _listed(models) -> dict[str, str]:
    """Each model's two lines, by its name."""
    items = [models.list.item(row).text() for row in range(models.list.count())]
    return {text.split(" — ", 1)[0]: text for text in items}


def test_your_models_lists_what_the_provider_offers_and_what_was_measured(
    qapp, tmp_path, fake_openai
):
    fake_openai.models = ["gpt-4o-mini", "SmolLM2-135M-Instruct", "text-embedding-3-small"]
    profile = configure_profile(tmp_path / "profile", fake_openai)
    speeds = SpeedLog(profile.data_dir)
    speeds.record(
        speed_key(fake_openai.base_url, "gpt-4o-mini"),
        ok=True,
        first_token_seconds=0.4,
        tokens_per_second=42.0,
    )
    speeds.save()
    settings_before = profile.settings_path.read_bytes()

    async def scenario(session: AppController):
        window = session.window
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        models = dialog.models_list
        assert not models.list.isVisible()  # nothing is asked until the user asks
        asked_before = len(fake_openai.requests_to("/v1/models"))
        QTest.mouseClick(models.list_button, Qt.MouseButton.LeftButton)
        assert not models.list_button.isEnabled()
        await wait_until(lambda: models.list_button.isEnabled())
        assert len(fake_openai.requests_to("/v1/models")) > asked_before
        listed = _listed(models)
        # The scripted server is on 127.0.0.1: this computer, so nothing to pay.
        assert listed["gpt-4o-mini"] == (
            "gpt-4o-mini — on this computer, 128k window, sees images, tools, tier 3 of 5\n"
            "Free · measured here: 0.4 s to first words, 42 tokens/s, 0% failed (1 call)"
        )
        assert "tier 1 of 5" in listed["SmolLM2-135M-Instruct"]
        assert listed["SmolLM2-135M-Instruct"].endswith("Free · not measured yet")
        assert "text-embedding-3-small" not in listed  # an embedder does not chat
        assert "you can reach" in models.status.text()
        dialog.reject()

    run_in_session(gui_session(profile), scenario)
    assert profile.settings_path.read_bytes() == settings_before  # listing changes nothing


def test_each_answer_from_is_saved_with_the_settings_and_kept_when_unchanged(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        box = dialog.routing_box
        assert box.currentData() is None  # nothing routes until the user chooses
        box.setCurrentIndex(box.findData("cheapest"))
        QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: load_model_settings(profile.settings_path).routing == "cheapest")
        await session.until_reconnected()
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        again = await wait_until(
            lambda: (d := window.findChild(SettingsDialog)) and d.isVisible() and d
        )
        assert again.routing_box.currentData() == "cheapest"
        again.reject()

    run_in_session(gui_session(profile), scenario)
