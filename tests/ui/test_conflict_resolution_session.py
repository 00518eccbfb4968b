"""Resolving a conflict from the memory panel, through the real session and service."""

from __future__ import annotations

import asyncio
import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import Actor
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.memory import shared_embedder

PAIRS = [
    ("The user lives in Berlin", "The user moved to Lisbon"),
    ("The user's cat is called Tom", "The user's cat is called Max"),
]


async def seed(profile: Profile) -> list[tuple[int, int]]:
    """Two pinned memories, each with a processor's contradiction stored as a conflict."""
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
    )
    try:
        memories = assistant.memories
        plain = await memories.remember("The user plays chess", explicit=True)
        assert plain.id
        pairs = []
        for old_text, new_text in PAIRS:
            old = await memories.pin((await memories.remember(old_text, explicit=True)).id)
            conflict = await memories.propose_change(
                old.id, new_text, actor=Actor.CRITICAL_INFO_PROCESSOR
            )
            pairs.append((old.id, conflict.id))
        return pairs
    finally:
        await assistant.close()


def db_row(profile: Profile, memory_id: int):
    with sqlite3.connect(profile.database_path) as db:
        return db.execute(
            "select status, pinned, user_edited, superseded_by from memories where id = ?",
            [memory_id],
        ).fetchone()


def test_use_new_and_keep_old_from_the_panel(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    (berlin, lisbon), (tom, max_) = asyncio.run(seed(profile))

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        model = window.memories_model

        def row(memory_id):
            index = model.row_of(memory_id)
            return None if index is None else model.index(index)

        # Only a conflict offers the choice.
        assert panel.select_memory(berlin)
        assert panel.actions_bar.isVisible() and not panel.conflict_bar.isVisible()
        assert panel.select_memory(lisbon)
        assert panel.conflict_bar.isVisible()
        assert f"contradicts “{PAIRS[0][0]}”" in panel.conflict_bar.label.text()
        assert not panel.actions_bar.pin_button.isEnabled()

        # Details of a conflict show the memory it contradicts.
        QTest.mouseClick(panel.actions_bar.details_button, Qt.MouseButton.LeftButton)
        details = await wait_until(lambda: window.findChild(MemoryDetailsDialog))
        await wait_until(lambda: "CONFLICTS WITH" in details.browser.toPlainText())
        text = details.browser.toPlainText()
        assert PAIRS[0][0] in text and f"memory #{berlin}" in text and "pinned" in text
        details.close()
        details.deleteLater()

        # Use new: the conflict becomes an active, pinned, user-approved memory and
        # the old one leaves the panel (superseded, kept in the database).
        QTest.mouseClick(panel.conflict_bar.use_new_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: row(berlin) is None)
        await wait_until(lambda: row(lisbon).data(MemoryRoles.STATUS) == "active")
        assert row(lisbon).data(MemoryRoles.PINNED)
        assert db_row(profile, lisbon) == ("active", 1, 1, None)
        assert db_row(profile, berlin) == ("superseded", 0, 0, lisbon)
        assert not panel.conflict_bar.isVisible()  # the selection is no conflict any more
        assert "Using" in window.statusBar().currentMessage()

        # Keep old: the conflict is forgotten, with Undo, and the old one stays pinned.
        assert panel.select_memory(max_)
        QTest.mouseClick(panel.conflict_bar.keep_old_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: row(max_) is None)
        assert db_row(profile, max_)[0] == "forgotten"
        assert db_row(profile, tom) == ("active", 1, 0, None)
        assert window.undo_button.isVisible()
        assert "Kept the old memory" in window.statusBar().currentMessage()
        QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: row(max_) is not None)
        assert row(max_).data(MemoryRoles.STATUS) == "conflict"  # to decide again

        # A refusal from the core reaches the status bar (not a conflict any more).
        session.memory_panel.resolve(berlin, "new")
        await wait_until(lambda: "not a conflict" in window.statusBar().currentMessage())
        assert db_row(profile, berlin)[0] == "superseded"

    run_in_session(gui_session(profile), scenario)
