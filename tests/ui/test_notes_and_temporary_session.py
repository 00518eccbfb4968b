"""Adding a note from the memory panel, and temporary chats, over the real session."""

from __future__ import annotations

import sqlite3

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.memory.validation import MAX_MEMORY_CHARS
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.conversations_model import ConversationRoles
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.dialogs import NoteDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def session_for(tmp_path, server) -> AppController:
    return gui_session(configure_profile(tmp_path / "profile", server))


def test_a_note_is_stored_as_written_and_refusals_keep_the_text(qapp, tmp_path, fake_openai):
    async def scenario(session: AppController):
        window = session.window
        click(window.memory_panel.add_note_button)
        dialog = await wait_until(lambda: window.findChild(NoteDialog))
        await wait_until(dialog.isVisible)

        click(dialog.save_button)  # empty
        assert dialog.error_label.isVisible() and dialog.isVisible()

        for refused in ("Ring the bell \x07 now", "x" * (MAX_MEMORY_CHARS + 1)):
            dialog.editor.setPlainText(refused)
            click(dialog.save_button)
            await wait_until(lambda: dialog.save_button.isEnabled())
            assert dialog.isVisible() and dialog.error_label.isVisible()
            assert dialog.error_label.text() != "Write the note first."
            assert dialog.editor.toPlainText() == refused
        assert window.memories_model.rowCount() == 0

        dialog.editor.setPlainText("My passport expires in March 2027.")
        click(dialog.save_button)
        await wait_until(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible())
        model = window.memories_model
        await wait_until(lambda: model.rowCount() == 1)
        assert model.index(0).data(MemoryRoles.CONTENT) == "My passport expires in March 2027."
        assert model.index(0).data(MemoryRoles.KIND) == "note"
        assert "Noted" in window.statusBar().currentMessage()
        return session.profile

    profile = run_in_session(session_for(tmp_path, fake_openai), scenario)
    with sqlite3.connect(profile.database_path) as db:
        rows = db.execute("select content, kind, status, origin from memories").fetchall()
    assert rows == [("My passport expires in March 2027.", "note", "active", "user")]


def test_a_temporary_chat_is_marked_and_writes_no_memory(qapp, tmp_path, fake_openai):
    async def scenario(session: AppController):
        window = session.window
        assert not window.temporary_badge.isVisible()
        click(window.temporary_chat_button)
        assert window.temporary_badge.isVisible()
        assert "nothing is remembered" in window.temporary_badge.toolTip()
        assert window.conversation_title.text() == "Temporary chat"
        assert "learns nothing" in window.transcript_empty_state.text_label.text()

        window.composer.input.setPlainText("I prefer green tea in the morning.")
        click(window.composer.send_button)
        messages = window.messages_model
        await wait_until(
            lambda: (
                messages.rowCount() == 2
                and messages.index(1).data(MessageRoles.STATUS) == "complete"
            )
        )
        await wait_until(lambda: not window.composer.busy)
        assert window.temporary_badge.isVisible()
        conversations = window.conversations_model
        await wait_until(lambda: conversations.rowCount() == 1)
        assert conversations.index(0).data(ConversationRoles.TEMPORARY) is True
        temporary_id = conversations.index(0).data(ConversationRoles.ID)

        # A normal new chat is not marked; opening the temporary one marks it again.
        click(window.new_chat_button)
        assert not window.temporary_badge.isVisible()
        assert "remember" in window.transcript_empty_state.title_label.text()
        window.conversation_list.open_conversation_requested.emit(temporary_id)
        await wait_until(lambda: window.temporary_badge.isVisible())
        assert messages.rowCount() == 2
        return session.profile

    profile = run_in_session(session_for(tmp_path, fake_openai), scenario)
    with sqlite3.connect(profile.database_path) as db:
        # Gone with the window that opened it (its tooltip says so).
        assert db.execute("select count(*) from conversations").fetchone() == (0,)
        assert db.execute("select count(*) from messages").fetchone() == (0,)
        assert db.execute("select count(*) from jobs").fetchone() == (0,)
        assert db.execute("select count(*) from memories").fetchone() == (0,)
    # The fake model's extraction was never asked: only the streamed answer was.
    assert all(r.json.get("stream") for r in fake_openai.chat_requests())


def test_a_temporary_memory_says_what_temporary_means(qapp, tmp_path, fake_openai):
    """The card's tooltip and the details say why it isn't in answers and when it
    becomes long-term; a lasting fact from the same processor is long-term at once."""
    from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        said: list[str] = []
        session.window.statusBar().messageChanged.connect(said.append)
        memories = session.assistant.memories
        tired = await memories.remember(
            "The user is tired today", category="Personal", actor="critical_info_processor",
            origin="critical_info", confidence=0.9,
        )  # fmt: skip
        vegetarian = await memories.remember(
            "The user is vegetarian", category="Health", actor="critical_info_processor",
            origin="critical_info", confidence=0.9,
        )  # fmt: skip
        assert (tired.status.value, vegetarian.status.value) == ("temporary", "active")
        window, panel = session.window, session.window.memory_panel
        await wait_until(lambda: any("Memory updated" in m for m in said))
        assert any("Noted for now (temporary" in m and "tired today" in m for m in said)
        model = window.memories_model
        await wait_until(lambda: model.rowCount() == 2)
        rows = {model.index(r).data(MemoryRoles.ID): model.index(r) for r in range(2)}
        tip = rows[tired.id].data(Qt.ItemDataRole.ToolTipRole)
        assert tip.startswith("The user is tired today")
        assert "not used in answers" in tip and "twice more" in tip and "pin" in tip
        assert rows[vegetarian.id].data(Qt.ItemDataRole.ToolTipRole) == "The user is vegetarian"

        assert panel.select_memory(tired.id)
        click(panel.actions_bar.details_button)
        details = await wait_until(lambda: window.findChild(MemoryDetailsDialog))
        await wait_until(lambda: "HISTORY" in details.browser.toPlainText())
        assert "becomes long-term if you mention it twice more" in details.browser.toPlainText()
        details.close()

    run_in_session(session_for(tmp_path, fake_openai), scenario)
