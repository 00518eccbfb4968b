"""Typing the next message holds learning back on a one-request-at-a-time server."""

from __future__ import annotations

from acai_desktop.core.learning.profile_jobs import YIELDING_JOBS
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from tests.core.conftest import TEST_MODELS
from tests.support.gui import gui_session, run_in_session


def test_a_keystroke_in_the_composer_holds_learning_back(qapp, tmp_path, fake_openai):
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            ProviderName.LLAMACPP, base_url=fake_openai.base_url, models=TEST_MODELS
        ),
    )

    async def scenario(session: AppController):
        runner = session.assistant.runner
        before = runner.paused_kinds
        session.window.composer.input.insertPlainText("What did I")
        return before, runner.paused_kinds

    before, while_typing = run_in_session(gui_session(profile), scenario)
    assert before == frozenset()
    # Every job that uses the model and gives way to turns (learning, naming the chat).
    assert while_typing == YIELDING_JOBS
    assert {"critical_info", "summary", "title"} <= while_typing
