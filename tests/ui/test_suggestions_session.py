"""Ask before remembering, in the window: a fact from the user's message waits in the
memory panel; Remember makes it a memory, Dismiss drops it for good."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPushButton

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def button(box, text: str, index: int = 0) -> QPushButton:
    return [b for b in box.findChildren(QPushButton) if b.text() == text][index]


def test_suggested_facts_wait_for_the_users_yes(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai, ask_before_remembering=True)

    async def scenario(session: AppController):
        window = session.window
        box = window.memory_panel.suggestions
        assert not box.isVisible()

        window.composer.input.setPlainText("My name is Ada and I live in <b>Paris</b>.")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        messages = window.messages_model
        await wait_until(
            lambda: (
                messages.rowCount() == 2
                and messages.index(1).data(MessageRoles.STATUS) == "complete"
            )
        )
        await wait_until(lambda: len(box.suggestions) == 2, timeout=30)
        assert box.isVisible() and "(2)" in box.title.text()
        texts = sorted(label.text() for label in box.findChildren(QLabel, "SuggestionText"))
        assert texts == ["The user lives in <b>Paris</b>", "The user's name is Ada"]
        # Quoted from a model's reading of the message: never markup.
        assert all(
            label.textFormat() == Qt.TextFormat.PlainText
            for label in box.findChildren(QLabel, "SuggestionText")
        )
        assert window.memories_model.rowCount() == 0  # nothing stored before a yes

        first = box.suggestions[0]
        QTest.mouseClick(button(box, "Remember"), Qt.MouseButton.LeftButton)
        model = window.memories_model
        await wait_until(lambda: model.rowCount() == 1)
        assert model.index(0).data(MemoryRoles.CONTENT) == first.content
        await wait_until(lambda: len(box.suggestions) == 1)
        assert "Remembered" in window.statusBar().currentMessage()

        QTest.mouseClick(button(box, "Dismiss"), Qt.MouseButton.LeftButton)
        await wait_until(lambda: not box.suggestions and not box.isVisible())
        assert model.rowCount() == 1

    run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        decided = sorted(r[0] for r in db.execute("SELECT status FROM memory_suggestions"))
        memories = db.execute("SELECT content, status FROM memories").fetchall()
    assert decided == ["accepted", "dismissed"]
    assert len(memories) == 1 and memories[0][1] == "active"


def test_waiting_suggestions_are_shown_at_start(qapp, tmp_path, fake_openai):
    """Proposed while the window was closed (or by another process): shown when it opens."""
    from tests.support.aio import run
    from tests.support.assistant import running_assistant

    async def propose():
        async with running_assistant(
            tmp_path / "profile", fake_openai, start_jobs=False, ask_before_remembering=True
        ) as assistant:
            conversation = await assistant.conversations.create()
            message = await assistant.conversations.add_message(
                conversation.id, "user", "My name is Ada."
            )
            await assistant.critical_info.process_message(message.id)

    run(propose())
    profile = configure_profile(tmp_path / "profile", fake_openai, ask_before_remembering=True)

    async def scenario(session: AppController):
        box = session.window.memory_panel.suggestions
        await wait_until(lambda: [s.content for s in box.suggestions] == ["The user's name is Ada"])
        assert box.isVisible()

    run_in_session(gui_session(profile), scenario)


def test_the_setting_follows_the_model_until_the_user_chooses(qapp):
    from acai_desktop.core.models.presets import ProviderName
    from acai_desktop.core.models.settings import ModelSettings
    from acai_desktop.ui.widgets.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ModelSettings.for_preset(ProviderName.LOCAL))
    box = dialog.ask_box
    assert box.isChecked()  # the bundled small model
    dialog.provider_fields.local_model.setText("/models/big.gguf")
    assert not box.isChecked()
    dialog.provider_fields.local_model.setText("")
    dialog.provider_fields.set_provider(ProviderName.OLLAMA)
    assert not box.isChecked()
    assert dialog.settings().ask_before_remembering is None  # no choice saved: the default

    box.click()  # as the user does (setChecked would not count as a choice)
    assert box.isChecked()
    dialog.provider_fields.set_provider(ProviderName.LOCAL)
    dialog.provider_fields.set_provider(ProviderName.OPENAI)
    assert box.isChecked()  # the user's choice stays
    assert dialog.settings().ask_before_remembering is True
    dialog.close()

    chosen = SettingsDialog(
        ModelSettings.for_preset(ProviderName.LOCAL, ask_before_remembering=False)
    )
    assert not chosen.ask_box.isChecked()
    chosen.provider_fields.set_provider(ProviderName.LOCAL)
    assert chosen.settings().ask_before_remembering is False
    chosen.close()


def test_accepting_a_new_home_against_a_pinned_one_asks_instead_of_replacing(
    qapp, tmp_path, fake_openai
):
    """Remember on "The user moved to Porto." with "The user lives in Lisbon." pinned:
    Lisbon stays pinned, the new fact is a conflict, and the status bar says so."""
    from acai_desktop.core.records.memories import SuggestionDraft

    profile = configure_profile(tmp_path / "profile", fake_openai, ask_before_remembering=True)

    async def scenario(session: AppController):
        window = session.window
        assistant = session.assistant
        box = window.memory_panel.suggestions
        home = await assistant.memories.remember("The user lives in Lisbon.", explicit=True)
        await assistant.memories.pin(home.id)
        conversation = await assistant.conversations.create()
        message = await assistant.conversations.add_message(
            conversation.id, "user", "I moved to Porto."
        )
        fact = "The user moved to Porto."
        await assistant.suggestions.propose(
            SuggestionDraft(message.id, conversation.id, fact, fact.lower(), "Location", 0.8)
        )
        await wait_until(lambda: len(box.suggestions) == 1)
        QTest.mouseClick(button(box, "Remember"), Qt.MouseButton.LeftButton)
        said = window.statusBar().currentMessage
        await wait_until(lambda: "Conflicts with what you pinned" in said())
        assert "The user lives in Lisbon." in said() and fact in said()
        assert "Remembered" not in said()
        kept = await assistant.memories.get(home.id)
        assert kept.status.value == "active" and kept.pinned
        model = window.memories_model
        await wait_until(lambda: model.rowCount() == 2)
        statuses = {
            model.index(r).data(MemoryRoles.CONTENT): model.index(r).data(MemoryRoles.STATUS)
            for r in range(model.rowCount())
        }
        assert statuses == {"The user lives in Lisbon.": "active", fact: "conflict"}

    run_in_session(gui_session(profile), scenario)
