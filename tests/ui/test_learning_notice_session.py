"""What the processors learn is said where the user looks: "Memory updated" with Undo in
the status bar; Undo forgets it (and offers to bring it back)."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

FACT = "The user prefers green tea in the morning"


def test_a_learned_fact_is_announced_and_undo_forgets_it(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        model = window.memories_model
        window.composer.input.setPlainText("I prefer green tea in the morning.")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: model.rowCount() == 1)
        assert model.index(0).data(MemoryRoles.CONTENT) == FACT
        await wait_until(lambda: "Memory updated" in window.statusBar().currentMessage())
        assert "green tea" in window.statusBar().currentMessage()
        assert window.undo_button.isVisible()

        QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: model.rowCount() == 0)
        await wait_until(lambda: "Forgot" in window.statusBar().currentMessage())
        assert window.undo_button.isVisible()  # and that can be undone too

    run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("SELECT content, status FROM memories").fetchall() == [
            (FACT, "forgotten")
        ]


def test_the_users_own_note_is_not_announced_as_learned(qapp, tmp_path, fake_openai):
    async def scenario(session: AppController):
        window = session.window
        await session.assistant.memories.remember("Call mum on Sunday", kind="note", explicit=True)
        await wait_until(lambda: window.memories_model.rowCount() == 1)
        assert "Memory updated" not in window.statusBar().currentMessage()
        assert not window.undo_button.isVisible()

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)


def test_a_conflict_is_announced_as_a_conflict_with_both_facts(qapp, tmp_path, fake_openai):
    """A new fact against a pinned one is not "Memory updated": the status bar names the
    pinned fact and the new one, and the panel shows the conflict."""

    async def scenario(session: AppController):
        window = session.window
        memories = session.assistant.memories
        home = await memories.remember("The user lives in Paris", category="Location")
        await memories.pin(home.id)
        # A processor may not change a pinned memory: the new fact becomes a conflict.
        conflict = await memories.propose_change(
            home.id, "The user lives in Berlin", actor="critical_info_processor"
        )
        assert conflict.status.value == "conflict"
        message = window.statusBar().currentMessage
        await wait_until(lambda: "Conflicts with what you pinned" in message())
        assert "The user lives in Paris" in message() and "The user lives in Berlin" in message()
        assert "Memory updated" not in message()
        await wait_until(lambda: window.memories_model.rowCount() == 2)

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)


def test_asked_in_a_message_to_forget_it_forgets_says_so_and_undo_restores(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window = session.window
        model = window.memories_model
        dog = await session.assistant.memories.remember("The user has a dog named Pico")
        await session.assistant.memories.remember(FACT)
        await wait_until(lambda: model.rowCount() == 2)
        window.composer.input.setPlainText("Please forget that I have a dog.")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: model.rowCount() == 1)
        assert model.index(0).data(MemoryRoles.CONTENT) == FACT
        said = window.statusBar().currentMessage()
        assert said == "Forgot “The user has a dog named Pico”, as you asked."
        assert window.undo_button.isVisible()
        QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: model.row_of(dog.id) is not None)
        restored = await session.assistant.memories.get(dog.id)
        assert restored.status.value == "active"
        # The request taught nothing back: the same two memories, no third.
        await wait_until(lambda: not window.composer.busy)
        assert sorted(
            model.index(r).data(MemoryRoles.CONTENT) for r in range(model.rowCount())
        ) == [
            "The user has a dog named Pico",
            FACT,
        ]

    run_in_session(gui_session(profile), scenario)


def _send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)


def test_the_built_in_rules_forget_what_they_wrote_when_asked(qapp, tmp_path, fake_openai):
    """ "I live in Lisbon" is written "The user lives in Lisbon"; "Forget that I live in
    Lisbon" forgets it, in the window, said with Undo."""
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        session.assistant.critical_info.facts_by_rules = True
        window = session.window
        model = window.memories_model
        _send(window, "I live in Lisbon.")
        await wait_until(lambda: model.rowCount() == 1)
        assert model.index(0).data(MemoryRoles.CONTENT) == "The user lives in Lisbon."
        await wait_until(lambda: not window.composer.busy)
        _send(window, "Forget that I live in Lisbon.")
        await wait_until(lambda: model.rowCount() == 0)
        said = window.statusBar().currentMessage
        await wait_until(lambda: said() == "Forgot “The user lives in Lisbon.”, as you asked.")
        assert window.undo_button.isVisible()

    run_in_session(gui_session(profile), scenario)


def test_a_request_to_forget_that_matches_nothing_says_so_and_searches(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window = session.window
        await session.assistant.memories.remember("The user lives in Porto.")
        await wait_until(lambda: window.memories_model.rowCount() == 1)
        _send(window, "Forget that I live in Lisbon.")
        said = window.statusBar().currentMessage
        await wait_until(lambda: said().startswith("Forgot nothing"))
        assert "no memory holds “I live in Lisbon”" in said()
        assert "memory panel" in said()
        assert window.memory_panel.search.text() == "live lisbon"
        assert window.memory_panel.isVisible()
        assert not window.undo_button.isVisible()
        # Nothing was forgotten.
        await wait_until(lambda: not window.composer.busy)
        porto = await session.assistant.memories.list()
        assert [m.content for m in porto] == ["The user lives in Porto."]

    run_in_session(gui_session(profile), scenario)
