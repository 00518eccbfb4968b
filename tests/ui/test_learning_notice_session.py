"""What the processors learn is said where the user looks: "Memory updated" with Undo in
the status bar; Undo forgets it (and offers to bring it back)."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.session import GuiSession
from tests.support.assistant import configure_profile
from tests.support.fake_model import fake_model
from tests.support.gui import gui_session, run_in_session, wait_until

FACT = "The user prefers green tea in the morning"


def test_a_learned_fact_is_announced_and_undo_forgets_it(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: GuiSession):
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
    async def scenario(session: GuiSession):
        window = session.window
        await session.assistant.memories.remember("Call mum on Sunday", kind="note", explicit=True)
        await wait_until(lambda: window.memories_model.rowCount() == 1)
        assert "Memory updated" not in window.statusBar().currentMessage()
        assert not window.undo_button.isVisible()

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)


def test_a_conflict_is_announced_as_a_conflict_not_an_update(qapp, tmp_path, fake_openai):
    from acai_desktop.core.records import Actor

    async def scenario(session: GuiSession):
        window = session.window
        memories = session.assistant.memories
        old = await memories.pin((await memories.remember("The user lives in Berlin")).id)
        await memories.propose_change(
            old.id, "The user moved to Lisbon", actor=Actor.CRITICAL_INFO_PROCESSOR
        )
        await wait_until(lambda: "Conflict" in window.statusBar().currentMessage())
        said = window.statusBar().currentMessage()
        assert "Lisbon" in said and "choose in the memory panel" in said
        assert "Memory updated" not in said

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)
