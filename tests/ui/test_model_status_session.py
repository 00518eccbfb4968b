"""Model status up front: the chip and the banner say whether the model can answer, and
why not, as soon as the window opens — before the user sends anything."""

from __future__ import annotations

import keyring
import keyring.backends.fail
import pytest

from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from tests.support.assistant import configure_profile
from tests.support.closed_ports import closed_urls
from tests.support.gui import gui_session, run_in_session, wait_until


@pytest.fixture
def no_keyring(monkeypatch):
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())


async def settled_status(session: AppController) -> tuple[str, str, bool, str]:
    window = session.window
    await wait_until(lambda: session.tasks.get("check-model") is None)
    return (
        window.model_badge.text(),
        window.model_state.text(),
        window.banner.isVisible(),
        window.banner_label.text(),
    )


def test_a_reachable_server_with_the_model_is_ready(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    badge, state, banner_shown, _ = run_in_session(gui_session(profile), settled_status)
    assert badge == "fake-chat · custom"
    assert state == "● ready"
    assert not banner_shown
    assert fake_openai.chat_requests() == []  # a listing, no tokens spent


def test_a_server_that_is_down_is_said_before_sending(qapp, tmp_path, fake_openai):
    with closed_urls(1) as (nowhere,):
        profile = configure_profile(tmp_path / "profile", fake_openai, base_url=nowhere)
        _badge, state, banner_shown, banner = run_in_session(gui_session(profile), settled_status)
    assert state == "unreachable"
    assert banner_shown and f"Nothing answers at {nowhere}" in banner
    assert "correct its address in Settings, then press Try again" in banner


def test_openai_without_a_key_says_no_key(qapp, tmp_path, monkeypatch, no_keyring):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(profile.settings_path, ModelSettings.for_preset(ProviderName.OPENAI))
    _badge, state, banner_shown, banner = run_in_session(gui_session(profile), settled_status)
    assert state == "no API key"
    assert banner_shown and "No API key is set for OpenAI" in banner
    assert "OPENAI_API_KEY" in banner and "Could not reach" not in banner


def test_a_model_name_the_server_lacks_is_said_with_what_it_has(qapp, tmp_path, fake_openai):
    fake_openai.models = ["llama3.2:latest", "qwen2.5:7b"]
    profile = configure_profile(tmp_path / "profile", fake_openai)
    _badge, state, banner_shown, banner = run_in_session(gui_session(profile), settled_status)
    assert state == "wrong model name"
    assert banner_shown and "no model named 'fake-chat'" in banner
    assert "llama3.2:latest, qwen2.5:7b" in banner


def test_a_missing_model_file_does_not_ask_for_pip(qapp, tmp_path):
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset("local", local_model_path=str(tmp_path / "missing.gguf")),
    )
    _badge, state, banner_shown, banner = run_in_session(gui_session(profile), settled_status)
    assert state == "can't start"
    assert banner_shown and "does not exist" in banner
    assert "pip install" not in banner and "GGUF" in banner


def test_the_chip_follows_a_server_that_dies_and_comes_back(
    qapp, tmp_path, fake_openai, monkeypatch
):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from acai_desktop.ui.controllers import model_watch
    from acai_lab.scripted_model import fake_model

    monkeypatch.setattr(model_watch, "RECHECK_MS", 200)  # the test needn't wait 15 s
    fake_openai.responder = fake_model
    port = fake_openai.port
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        assert (await settled_status(session))[1] == "● ready"
        fake_openai.stop()  # the server dies mid-session
        window.composer.input.setPlainText("Are you still there?")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.model_state.text() == "unreachable")
        assert window.banner.isVisible()
        assert "Nothing answers at" in window.banner_label.text()
        fake_openai.start(port)  # back, at the address the app was given
        await wait_until(lambda: window.model_state.text() == "● ready")
        assert not window.banner.isVisible()

    run_in_session(gui_session(profile), scenario)
