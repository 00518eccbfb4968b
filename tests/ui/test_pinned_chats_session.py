"""Pinning a chat from its ⋯ menu keeps it at the top of the sidebar, marked, over the
real core; unpinning puts it back in its place by last activity."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.store.conversations import add_message, create_conversation
from acai_desktop.core.store.database import Store
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.conversations_model import PINNED_NOTE, ConversationRoles
from acai_desktop.ui.widgets.conversation_list import PIN_TEXT, UNPIN_TEXT, more_rect
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def titles(model) -> list[str]:
    return [model.index(row).data(ConversationRoles.TITLE) for row in range(model.rowCount())]


def seed_chats(path) -> None:
    async def write():
        store = await Store.open(path)
        try:
            for title in ("Older chat", "Newer chat"):
                conversation = await store.run(create_conversation, title)
                await store.run(add_message, conversation.id, "user", f"Hello from {title}")
        finally:
            await store.close()

    run(write())


def open_row_menu(view, row: int):
    rect = more_rect(view.visualRect(view.model().index(row)))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    return view.menu


def choose(menu, text: str) -> None:
    [action] = [a for a in menu.actions() if a.text() == text]
    action.trigger()


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_a_pinned_chat_stays_first_in_the_sidebar(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    seed_chats(profile.database_path)

    async def scenario(session: AppController):
        window = session.window
        model, view = window.conversations_model, window.conversation_list
        await wait_until(lambda: model.rowCount() == 2)
        assert titles(model) == ["Newer chat", "Older chat"]

        choose(await wait_until(lambda: open_row_menu(view, 1)), PIN_TEXT)
        await wait_until(lambda: titles(model) == ["Older chat", "Newer chat"])
        assert model.index(0).data(ConversationRoles.PINNED)
        assert PINNED_NOTE in model.index(0).data(Qt.ItemDataRole.ToolTipRole)
        assert not model.index(1).data(ConversationRoles.PINNED)

        # New activity in another chat doesn't lift it over the pinned one.
        newer_id = model.index(1).data(ConversationRoles.ID)
        await session.assistant.orchestrator.send(newer_id, "Still here?")
        active_at = (await session.assistant.conversations.get(newer_id)).updated_at
        await wait_until(
            lambda: (
                [model.index(r).data(ConversationRoles.UPDATED_AT) for r in (0, 1)][1] == active_at
            )
        )
        assert titles(model) == ["Older chat", "Newer chat"]
        menu = await wait_until(lambda: open_row_menu(view, 0))
        assert menu.actions()[0].text() == UNPIN_TEXT
        menu.close()
        return model.index(0).data(ConversationRoles.ID)

    pinned_id = run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("select id from conversations where pinned").fetchall() == [(pinned_id,)]
