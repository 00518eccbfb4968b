"""Custom instructions in the window, over the real core: the memory panel lists them
apart from the memories, *Sources* shows them when an answer used them, a chat's ⋯ menu
gives it its own, and Settings has a section for the profile's."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt

from acai_desktop.core.conversations.custom_instructions import (
    ABOUT_LABEL,
    MAX_INSTRUCTION_CHARS,
    RESPOND_LABEL,
    CustomInstructions,
)
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_view import SOURCES
from acai_desktop.ui.widgets.conversation_list import INSTRUCTIONS_TEXT
from acai_desktop.ui.widgets.history_dialogs import INSTRUCTIONS_HEAD, ProvenanceDialog
from acai_desktop.ui.widgets.instructions_widgets import ChatInstructionsDialog
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from acai_lab.scripted_model import fake_model
from tests.core.conftest import TEST_MODELS
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import click_action, send
from tests.ui.test_pinned_chats_session import choose, open_row_menu

RESPOND = "Answer briefly, in British English."
ABOUT = "I am a nurse working <b>night</b> shifts."
OWN = "Reply like a pirate."


async def sources_text(window, row: int) -> str:
    window.chat_view.scrollToBottom()
    await asyncio.sleep(0)
    click_action(window.chat_view, row, SOURCES)
    dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
    await wait_until(lambda: INSTRUCTIONS_HEAD in dialog.browser.toPlainText())
    text = dialog.browser.toPlainText()
    dialog.close()
    dialog.deleteLater()
    await wait_until(lambda: window.findChild(ProvenanceDialog) is None)
    return text


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_instructions_are_listed_apart_used_shown_in_sources_and_overridden_per_chat(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window = session.window
        box = window.memory_panel.instructions_box
        await session.assistant.instructions.set_profile(RESPOND, ABOUT)
        # The panel lists them apart from the memories, as plain text.
        await wait_until(lambda: any(RESPOND in text for text in box.texts()))
        assert any(ABOUT in text for text in box.texts())
        for label in (box.respond_label, box.about_label):
            assert label.textFormat() == Qt.TextFormat.PlainText  # the user's words, as typed
        assert window.memories_model.rowCount() == 0

        messages = window.messages_model
        send(window, "What should I eat before work?")
        await wait_until(
            lambda: (
                messages.rowCount() == 2
                and messages.index(1).data(MessageRoles.SOURCES_COUNT) is not None
            )
        )
        await wait_until(lambda: not window.composer.busy)
        first = await sources_text(window, 1)
        assert RESPOND in first and ABOUT in first and "from Settings" in first

        # The chat's ⋯ menu: its own instructions replace the profile's.
        choose(await wait_until(lambda: open_row_menu(window.conversation_list, 0)),
               INSTRUCTIONS_TEXT)  # fmt: skip
        dialog = await wait_until(lambda: window.findChild(ChatInstructionsDialog))
        assert dialog.use_profile.isChecked() and not dialog.fields.isEnabled()
        dialog.use_profile.setChecked(False)
        dialog.fields.respond.setPlainText(OWN)
        dialog.fields.about.setPlainText("")
        dialog.save_button.click()
        conversation_id = session.chat.conversation_id
        await wait_until(
            lambda: (
                session.assistant.instructions is not None
                and window.statusBar().currentMessage().startswith("This chat's instructions")
            )
        )
        send(window, "And after work?")
        await wait_until(
            lambda: (
                messages.rowCount() == 4
                and messages.index(3).data(MessageRoles.SOURCES_COUNT) is not None
            )
        )
        await wait_until(lambda: not window.composer.busy)
        second = await sources_text(window, 3)
        return conversation_id, first, second

    conversation_id, _first, second = run_in_session(gui_session(profile), scenario)
    assert OWN in second and "this chat's own" in second and RESPOND not in second
    prompts = [
        r.json["messages"][0]["content"]
        for r in fake_openai.chat_requests()
        if r.json["model"] == TEST_MODELS.chat
    ]
    assert RESPOND in prompts[0] and OWN not in prompts[0]
    assert OWN in prompts[1] and RESPOND not in prompts[1]
    assert conversation_id is not None


def test_settings_has_a_section_for_the_two_fields(qtbot):
    dialog = SettingsDialog(
        ModelSettings.for_preset("ollama"), instructions=CustomInstructions(RESPOND, "")
    )
    qtbot.addWidget(dialog)
    fields = dialog.instructions_fields
    assert fields.respond.toPlainText() == RESPOND
    assert [fields.respond.accessibleName(), fields.about.accessibleName()] == [
        RESPOND_LABEL,
        ABOUT_LABEL,
    ]
    saved: list = []
    dialog.instructions_save_requested.connect(saved.append)

    fields.about.setPlainText("x" * (MAX_INSTRUCTION_CHARS + 1))
    dialog.save_button.click()
    assert saved == [] and "at most" in dialog.error_label.text()

    fields.about.setPlainText(ABOUT)
    dialog.save_button.click()
    assert saved == [CustomInstructions(RESPOND, ABOUT)]


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_edit_in_the_memory_panel_opens_settings_at_the_instructions(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.memory_panel.instructions_box.edit_button.click()
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        fields = dialog.instructions_fields
        await wait_until(lambda: dialog.focusWidget() is fields.respond)
        scroll = dialog.scroll
        await wait_until(lambda: scroll.verticalScrollBar().value() > 0)  # not at the top
        shown = scroll.viewport().rect()
        for widget in (dialog.instructions_title, fields.respond, fields.about):
            top_left = widget.mapTo(scroll.viewport(), widget.rect().topLeft())
            assert shown.contains(top_left), widget
        dialog.reject()

    run_in_session(gui_session(profile), scenario)
