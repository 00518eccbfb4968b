"""The first start asks which model answers, each option saying what it is; the built-in
demo model can be chosen, never silently. Hermetic: detection sees scripted servers,
closed ports and an explicit environment."""

from __future__ import annotations

import functools
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.detection import BUILT_IN_TITLE, detect_providers
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.first_start_dialog import FirstStartDialog
from tests.support.closed_ports import presets_with_nothing_there
from tests.support.gui import gui_session, run_in_session, wait_until


@pytest.fixture
def nothing_there():
    with presets_with_nothing_there() as urls:
        yield urls


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def saved_provider(profile: Profile) -> str | None:
    if not profile.settings_path.exists():
        return None
    return json.loads(profile.settings_path.read_text()).get("llm", {}).get("provider")


async def first_start_dialog(session: AppController) -> FirstStartDialog:
    dialog = await wait_until(lambda: session.window.findChild(FirstStartDialog))
    await wait_until(dialog.isVisible)
    return dialog


def test_each_model_found_is_offered_for_what_it_is_and_only_the_pick_is_saved(
    qapp, tmp_path, fake_openai, nothing_there
):
    fake_openai.models = ["qwen2.5:7b"]
    profile = Profile.at(tmp_path / "profile")
    detect = functools.partial(
        detect_providers,
        urls=nothing_there | {ProviderName.LMSTUDIO: fake_openai.base_url},
        environ={"OPENAI_API_KEY": "sk-test-not-real"},
    )
    session = gui_session(profile, detect=detect)

    async def scenario(session: AppController):
        dialog = await first_start_dialog(session)
        offered = [(o.provider, o.title, o.description) for o in dialog.options]
        shown = [button.text() for button in dialog.option_buttons]
        described = [label.text() for label in dialog.option_texts]
        nothing_saved_yet = saved_provider(profile)
        assert session.assistant is None  # nothing runs before the user picks
        click(dialog.option_buttons[0])
        click(dialog.use_button)
        await wait_until(lambda: session.assistant is not None)
        await wait_until(lambda: session.tasks.get("open") is None)
        return offered, shown, described, nothing_saved_yet, session.window.model_badge.text()

    offered, shown, described, nothing_saved_yet, badge = run_in_session(
        session, scenario, wait_for_open=False
    )
    assert [provider for provider, _, _ in offered] == [
        ProviderName.LMSTUDIO,
        ProviderName.OPENAI,
        ProviderName.LOCAL,
    ]
    assert shown == [title for _, title, _ in offered]
    assert described == [description for _, _, description in offered]
    assert fake_openai.base_url in shown[0] and "qwen2.5:7b" in described[0]
    assert "OPENAI_API_KEY" in described[1] and "sent to OpenAI" in described[1]
    assert shown[2] == BUILT_IN_TITLE
    assert "demo" in described[2] and "remembers only what you say plainly" in described[2]
    assert nothing_saved_yet is None
    assert saved_provider(profile) == "lmstudio"
    assert badge == "qwen2.5:7b · lmstudio"


def test_the_built_in_model_is_not_chosen_without_the_user(qapp, tmp_path, nothing_there):
    profile = Profile.at(tmp_path / "profile")
    detect = functools.partial(detect_providers, urls=nothing_there, environ={})
    session = gui_session(profile, detect=detect)

    async def scenario(session: AppController):
        dialog = await first_start_dialog(session)
        offered = [option.provider for option in dialog.options]
        click(dialog.later_button)
        await wait_until(lambda: session.assistant is not None)
        await wait_until(lambda: session.tasks.get("open") is None)
        window = session.window
        return offered, window.banner.isVisible(), window.banner_label.text(), session.assistant

    offered, banner_shown, banner, assistant = run_in_session(
        session, scenario, wait_for_open=False
    )
    assert offered == [ProviderName.LOCAL]
    assert saved_provider(profile) is None
    assert assistant.local_server is None  # no model server was started behind the user
    assert banner_shown and "No model is chosen yet" in banner and "Settings" in banner


def test_choose_in_settings_opens_the_settings_dialog(qapp, tmp_path, nothing_there):
    from acai_desktop.ui.widgets.settings_dialog import SettingsDialog

    profile = Profile.at(tmp_path / "profile")
    detect = functools.partial(detect_providers, urls=nothing_there, environ={})
    session = gui_session(profile, detect=detect)

    async def scenario(session: AppController):
        dialog = await first_start_dialog(session)
        click(dialog.settings_button)
        settings = await wait_until(lambda: session.window.findChild(SettingsDialog))
        await wait_until(settings.isVisible)
        return saved_provider(profile)

    assert run_in_session(session, scenario, wait_for_open=False) is None
