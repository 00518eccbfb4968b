"""A chat's model settings from its header, and the token usage line under each answer,
in the real window over the scripted server: the choices are remembered per chat across
a restart and reach the server, another chat keeps the profile's, a model the server
doesn't list reads "wrong model name", and the usage line shows the server's own figures
(or says they were not reported), with memory's share of the prompt."""

from __future__ import annotations

import pytest

from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.token_usage_text import NOT_REPORTED
from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog
from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import prompt_words
from tests.core.conftest import TEST_MODELS
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import send

OWN_MODEL = "big-model"
UNKNOWN_MODEL = "no-such-model"
FIRST = "I am planning a long trip through the mountains of Norway next summer. " * 4

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


async def answered(window, rows: int) -> None:
    """Wait until the transcript has ``rows`` rows, the last a finished answer."""
    messages = window.messages_model
    await wait_until(
        lambda: (
            messages.rowCount() == rows
            and messages.index(rows - 1).data(MessageRoles.STATUS) == "complete"
            and not window.composer.busy
        )
    )


async def probed(session: AppController) -> None:
    await wait_until(lambda: session.header.probe is not None and session.header.probe.models)


async def open_chat_settings(window) -> ChatSettingsDialog:
    window.chat_settings_button.click()
    return await wait_until(lambda: window.findChild(ChatSettingsDialog))


async def closed(window) -> None:
    await wait_until(lambda: window.findChild(ChatSettingsDialog) is None)


def answer_requests(server) -> list[dict]:
    return [r.json for r in server.chat_requests() if call_kind(r.json) == "chat"]


def test_a_chats_header_settings_are_remembered_across_a_restart_and_reach_the_server(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    fake_openai.models = [*fake_openai.models, OWN_MODEL]
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def choose(session: AppController):
        window = session.window
        await probed(session)
        send(window, FIRST)
        await answered(window, 2)
        own_chat = session.chat.conversation_id
        dialog = await open_chat_settings(window)
        # The server's models are offered; nothing is the chat's own yet.
        offered = [dialog.model.itemText(i) for i in range(dialog.model.count())]
        assert OWN_MODEL in offered and TEST_MODELS.chat in offered
        assert not dialog.own_model.isChecked() and not dialog.model.isEnabled()
        dialog.own_model.setChecked(True)
        dialog.model.setCurrentText(OWN_MODEL)
        dialog.own_temperature.setChecked(True)
        dialog.temperature.setValue(0.3)
        dialog.own_budget.setChecked(True)
        dialog.budget.set_value(256)
        assert not dialog.warning_label.isVisible()  # a name the server listed
        dialog.save_button.click()
        await closed(window)
        await wait_until(lambda: window.model_badge.text().startswith(f"{OWN_MODEL} ·"))
        saved = await session.assistant.chat_settings.for_chat(own_chat)
        assert (saved.model, saved.temperature, saved.context_budget_tokens) == (
            OWN_MODEL,
            0.3,
            256,
        )
        assert window.chat_settings_button.property("own") is True
        assert "this chat's own" in window.chat_settings_button.toolTip()
        assert window.composer.prompt_budget_tokens == 256
        # Another chat keeps the profile's.
        window.new_chat_button.click()
        await wait_until(lambda: window.model_badge.text().startswith(f"{TEST_MODELS.chat} ·"))
        send(window, FIRST)
        await answered(window, 2)
        assert window.chat_settings_button.property("own") is False
        return own_chat, session.chat.conversation_id

    own_chat, other_chat = run_in_session(gui_session(profile), choose)
    before_restart = len(answer_requests(fake_openai))

    async def after_restart(session: AppController):
        window = session.window
        await probed(session)
        session.conversations.open(own_chat)
        await wait_until(lambda: session.chat.conversation_id == own_chat)
        await wait_until(lambda: window.model_badge.text().startswith(f"{OWN_MODEL} ·"))
        dialog = await open_chat_settings(window)
        assert dialog.own_model.isChecked() and dialog.model.currentText() == OWN_MODEL
        assert dialog.own_temperature.isChecked() and dialog.temperature.value() == 0.3
        assert dialog.own_budget.isChecked() and dialog.budget.value() == 256
        dialog.reject()
        await closed(window)
        send(window, "Which month is best?")
        await answered(window, 4)
        session.conversations.open(other_chat)
        await wait_until(lambda: session.chat.conversation_id == other_chat)
        await wait_until(lambda: window.model_badge.text().startswith(f"{TEST_MODELS.chat} ·"))
        send(window, "Which month is best?")
        await answered(window, 4)

    run_in_session(gui_session(profile), after_restart)
    mine, theirs = answer_requests(fake_openai)[before_restart:]
    assert (mine["model"], mine["temperature"]) == (OWN_MODEL, 0.3)
    assert theirs["model"] == TEST_MODELS.chat and "temperature" not in theirs
    # 256 tokens leave no room for the chat's history; the profile's budget carries it.
    assert len(mine["messages"]) == 2
    assert len(theirs["messages"]) == 4 and FIRST.strip() in theirs["messages"][1]["content"]


def test_a_model_the_server_does_not_list_reads_wrong_model_name(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        await probed(session)
        send(window, "Hello there")
        await answered(window, 2)
        dialog = await open_chat_settings(window)
        first = dialog
        window.chat_settings_button.click()  # one at a time: the first gives way
        dialog = await wait_until(
            lambda: [d for d in window.findChildren(ChatSettingsDialog) if d is not first]
        )
        dialog = dialog[0]
        await wait_until(lambda: len(window.findChildren(ChatSettingsDialog)) == 1)
        dialog.own_model.setChecked(True)
        dialog.model.setCurrentText(UNKNOWN_MODEL)
        assert dialog.warning_label.isVisible()  # said at once, before saving
        dialog.save_button.click()
        await closed(window)
        await wait_until(lambda: window.model_state.text() == "wrong model name")
        assert window.model_badge.text().startswith(f"{UNKNOWN_MODEL} ·")
        banner = window.banner_label.text()
        assert f"no model named {UNKNOWN_MODEL!r}" in banner and "this chat's settings" in banner
        window.new_chat_button.click()  # the profile's model is fine
        await wait_until(lambda: window.model_state.text() == "● ready")
        assert not window.banner.isVisible()

    run_in_session(gui_session(profile), scenario)


def test_the_usage_line_shows_the_servers_figures_and_memorys_share_after_a_restart(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        assistant = session.assistant
        note = await assistant.memories.remember(
            "The user's dog is called Biscuit.", kind=MemoryKind.NOTE, explicit=True
        )
        await assistant.memories.pin(note.id)
        send(window, "What is my dog called?")
        await answered(window, 2)
        line = await wait_until(lambda: window.chat_view.usage_shown(1))
        assert window.chat_view.usage_shown(0) is None  # the user's message has none
        stored = await assistant.conversations.get_message(
            window.messages_model.index(1).data(MessageRoles.ID)
        )
        return line, stored

    line, stored = run_in_session(gui_session(profile), scenario)
    request = answer_requests(fake_openai)[0]
    prompt, completion = prompt_words(request), len(stored.content.split())
    share = stored.usage.memory_tokens / prompt
    assert stored.usage.memory_tokens > 0
    assert line == (
        f"{prompt:,} prompt · {completion:,} completion tokens · memory {share:.0%} of the prompt"
    )

    async def reopened(session: AppController):
        await answered(session.window, 2)  # the latest chat, shown at start
        return await wait_until(lambda: session.window.chat_view.usage_shown(1))

    assert run_in_session(gui_session(profile), reopened) == line


def test_a_server_that_reports_no_usage_gets_no_invented_figures(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    fake_openai.reports_usage = False
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        send(window, "Hello there")
        await answered(window, 2)
        return await wait_until(lambda: window.chat_view.usage_shown(1))

    line = run_in_session(gui_session(profile), scenario)
    assert line == NOT_REPORTED
    assert not any(ch.isdigit() for ch in line)


def test_the_dialog_flags_only_names_the_server_lacks_and_unticked_is_unset(qtbot):
    from acai_desktop.core.conversations.chat_settings import ChatSettings, ProfileChatDefaults

    profile = ProfileChatDefaults("llama3.2", 3000)
    dialog = ChatSettingsDialog(profile, ChatSettings(model="llama3.2"), ["llama3.2:latest"])
    qtbot.addWidget(dialog)
    assert dialog.warning_label.isHidden()  # Ollama's "llama3.2" is "llama3.2:latest"
    dialog.model.setCurrentText("qwen3")
    assert not dialog.warning_label.isHidden()
    dialog.own_model.setChecked(False)
    assert dialog.warning_label.isHidden()
    assert dialog.chosen() == ChatSettings()  # nothing ticked: all from Settings
    assert "3,000 tokens" in dialog.note.text() and "llama3.2" in dialog.note.text()
    assert "each answer from: your chat model, always" in dialog.note.text()
    dialog.own_routing.setChecked(True)
    dialog.routing.setCurrentIndex(dialog.routing.findData("fastest"))
    assert dialog.chosen() == ChatSettings(routing="fastest")
