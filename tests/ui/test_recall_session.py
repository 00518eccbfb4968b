"""Episodic recall in the window: an answer's provenance names a message of another
chat, and clicking it opens that chat scrolled to the message, highlighted."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store.database import Store
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_view import SOURCES
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import click_action, send

TOLD = "My bike is a blue Gazelle that I bought in Utrecht."


async def _earlier_chat(store: Store) -> tuple[int, int]:
    """A long chat from before, the bike mentioned near its start: (chat id, message id)."""

    def write(db):
        chat = conversation_sql.create_conversation(db, "Bikes and errands")
        told = None
        for turn in range(24):
            if turn == 2:
                told = conversation_sql.add_message(db, chat.id, "user", TOLD)
                continue
            role = "user" if turn % 2 == 0 else "assistant"
            conversation_sql.add_message(db, chat.id, role, f"Errand number {turn} is done.")
        return chat.id, told.id

    return await store.run(write)


def _seed(path) -> tuple[int, int]:
    async def seed():
        store = await Store.open(path)
        try:
            return await _earlier_chat(store)
        finally:
            await store.close()

    return run(seed())


def test_provenance_opens_the_recalled_message_in_its_chat(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    chat_id, told_id = _seed(profile.database_path)

    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        await wait_until(lambda: messages.conversation_id == chat_id)
        session.conversations.new_chat()
        await wait_until(lambda: messages.conversation_id is None)
        send(window, "Which Gazelle did I buy in Utrecht?")
        await wait_until(
            lambda: (
                messages.rowCount() == 2
                and messages.index(1).data(MessageRoles.SOURCES_COUNT) is not None
            )
        )
        await wait_until(lambda: not window.composer.busy)
        window.chat_view.scrollToBottom()
        click_action(window.chat_view, 1, SOURCES)
        dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: "from the chat" in dialog.browser.toPlainText())
        assert "You: " + TOLD in dialog.browser.toPlainText()
        assert "from the chat Bikes and errands" in dialog.browser.toPlainText()
        window.grab().save("/tmp/acai-recall-provenance.png")
        dialog.grab().save("/tmp/acai-recall-dialog.png")

        # Click the "from the chat ..." line, as a user does.
        found = dialog.browser.document().find("from the chat")
        end = dialog.browser.cursorRect(found).center()
        QTest.mouseClick(
            dialog.browser.viewport(), Qt.MouseButton.LeftButton, pos=end - QPoint(20, 0)
        )
        await wait_until(lambda: messages.conversation_id == chat_id)
        await wait_until(lambda: window.chat_view.highlighted_message_id == told_id)
        await wait_until(lambda: window.findChild(ProvenanceDialog) is None)  # closed
        row = next(
            r
            for r in range(messages.rowCount())
            if messages.index(r).data(MessageRoles.ID) == told_id
        )
        shown = window.chat_view.visualRect(messages.index(row))
        assert window.chat_view.viewport().rect().intersects(shown)
        # It scrolled there: the chat's last message (where a chat opens) is out of view.
        last = window.chat_view.visualRect(messages.index(messages.rowCount() - 1))
        assert not window.chat_view.viewport().rect().intersects(last)
        window.grab().save("/tmp/acai-recall-opened.png")
        return session

    run_in_session(gui_session(profile), scenario)
