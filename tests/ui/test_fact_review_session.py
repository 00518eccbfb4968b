"""The Review in the real window (issue 43, item 1): the facts past their lifetime show
below the memory list, oldest first, with Still true, Edit and No longer true; each
answer is stored and the box keeps only what is still due; nothing shows when none is."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.dialogs import MemoryEditDialog
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")

LONG_AGO = "2024-02-01T08:00:00+00:00"


def press(box, label: str, memory_id: int) -> None:
    content = next(m.content for m in box.due if m.id == memory_id)
    [button] = [
        b for b in box.findChildren(QPushButton) if b.accessibleName() == f"{label}: {content}"
    ]
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_the_review_asks_about_aged_facts_and_keeps_each_answer(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, assistant = session.window, session.assistant
        box = window.memory_panel.review
        assert box.isHidden()  # nothing due: nothing shows
        facts = [
            await assistant.memories.remember(text, category=category, explicit=True)
            for text, category in [
                ("The user works as a nurse", "Professional"),
                ("The user lives in Porto", "Location"),
                ("The user has a cat named Miso", "Relationship"),
                ("The user's name is Marta", "Personal"),
            ]
        ]
        with sqlite3.connect(profile.database_path) as db:
            db.execute("UPDATE memories SET created_at = ?", [LONG_AGO])
        session.fact_review.refresh()  # as a change from a terminal would
        await wait_until(lambda: len(box.due) == 3 and not box.isHidden())
        nurse, porto, cat, _name = facts
        assert [m.id for m in box.due] == [nurse.id, porto.id, cat.id]
        assert box.title.text() == "Still true? (3)"

        press(box, "Still true", nurse.id)
        await wait_until(lambda: [m.id for m in box.due] == [porto.id, cat.id])
        press(box, "No longer true", porto.id)
        await wait_until(lambda: [m.id for m in box.due] == [cat.id])
        press(box, "Edit", cat.id)
        dialog = await wait_until(lambda: window.findChild(MemoryEditDialog))
        dialog.editor.setPlainText("The user has two cats, Miso and Tofu")
        dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
        await wait_until(lambda: box.isHidden())
        return {m.id: m for m in await assistant.memories.list()}, facts

    current, facts = run_in_session(gui_session(profile), scenario)
    nurse, porto, cat, name = facts
    assert current[nurse.id].as_of > LONG_AGO  # still true, as of today
    assert porto.id not in current  # no longer true: superseded
    assert current[cat.id].content == "The user has two cats, Miso and Tofu"
    assert current[cat.id].as_of > LONG_AGO
    assert current[name.id].as_of is None  # a name never ages: never asked
