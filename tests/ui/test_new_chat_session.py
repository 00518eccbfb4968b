"""A new chat becomes the conversation its first message starts: the chat controller,
which sent that message, hands the conversation to the conversations controller, and no
other conversation takes the new chat's place. The whole window over the real core."""

from __future__ import annotations

import asyncio
import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.conversations_model import ConversationRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    click(window.composer.send_button)


def selected_ids(window) -> list[int]:
    rows = window.conversation_list.selectionModel().selectedIndexes()
    return [index.data(ConversationRoles.ID) for index in rows]


def session_for(tmp_path, server) -> AppController:
    return gui_session(configure_profile(tmp_path / "profile", server))


def test_a_first_message_makes_the_new_chat_its_conversation(qapp, tmp_path, fake_openai):
    async def scenario(session: AppController):
        window, chat = session.window, session.chat
        assert chat.conversation_id is None  # a fresh profile opens on a new chat
        # A conversation started elsewhere (the service, as an evaluation does) is
        # listed; the new chat on screen stays new.
        elsewhere = await session.assistant.conversations.create("Started elsewhere")
        await wait_until(lambda: window.conversations_model.rowCount() == 1)
        assert chat.conversation_id is None
        assert window.conversation_title.text() == "New conversation"
        assert selected_ids(window) == []

        send(window, "I prefer green tea in the morning.")
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2)
        started = chat.conversation_id
        assert started is not None and started != elsewhere.id
        assert {m.data(MessageRoles.ROLE) for m in map(messages.index, range(2))} == {
            "user",
            "assistant",
        }
        assert selected_ids(window) == [started]
        await wait_until(lambda: not window.composer.busy)
        assert chat.conversation_id == started
        assert window.conversation_title.text().startswith("I prefer green tea")
        return session.profile, started

    profile, started = run_in_session(session_for(tmp_path, fake_openai), scenario)
    with sqlite3.connect(profile.database_path) as db:
        rows = db.execute("select distinct conversation_id from messages").fetchall()
        assert rows == [(started,)]


def test_leaving_the_new_chat_before_its_conversation_starts_keeps_the_choice(
    qapp, tmp_path, fake_openai
):
    async def scenario(session: AppController):
        window, chat = session.window, session.chat
        # Another program's long write holds the database: the turn waits to start
        # its conversation, and meanwhile the user asks for another new chat.
        other = sqlite3.connect(session.profile.database_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            send(window, "I prefer green tea in the morning.")
            await wait_until(lambda: window.composer.busy)
            await asyncio.sleep(0.3)
            assert window.conversations_model.rowCount() == 0
            click(window.temporary_chat_button)
        finally:
            other.execute("ROLLBACK")
            other.close()
        # The turn goes on in its own conversation, listed but not shown.
        await wait_until(lambda: window.conversations_model.rowCount() == 1)
        await wait_until(lambda: not window.composer.busy)
        assert chat.conversation_id is None and chat.new_chat_temporary
        assert window.conversation_title.text() == "Temporary chat"
        assert window.messages_model.rowCount() == 0
        assert selected_ids(window) == []

    run_in_session(session_for(tmp_path, fake_openai), scenario)
