"""Renaming and deleting a conversation from the list, over the real core: the
context menu and the "⋯" on a row, the dialogs, the list, the header, the memories."""

from __future__ import annotations

import json
import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.local_only_text import MARK_TEXT
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.conversation_list import (
    DELETE_TEXT,
    EXPORT_TEXT,
    INSTRUCTIONS_TEXT,
    PIN_TEXT,
    RENAME_TEXT,
    more_rect,
)
from acai_desktop.ui.widgets.dialogs import (
    DELETE_CONVERSATION_TEXT,
    DeleteConversationDialog,
    RenameConversationDialog,
)
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

FACT = "The user prefers green tea in the morning"


def rows(model, role):
    return [model.index(row).data(role) for row in range(model.rowCount())]


def send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)


def choose(menu, text: str) -> None:
    [action] = [a for a in menu.actions() if a.text() == text]
    action.trigger()


# A popup menu asks the window system to raise it and grab the keyboard; the offscreen
# platform can't, and says so. Nothing else in this test may warn.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_rename_and_delete_from_the_list_keep_the_memory(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario(session: AppController):
        window = session.window
        conversations = window.conversations_model
        view = window.conversation_list
        send(window, "I prefer green tea in the morning.")
        await wait_until(lambda: FACT in rows(window.memories_model, MemoryRoles.CONTENT))
        await wait_until(lambda: conversations.rowCount() == 1 and not window.composer.busy)
        conversation_id = session.chat.conversation_id

        # Right-click: Rename… opens a dialog; an empty title is refused there.
        center = view.visualRect(conversations.index(0)).center()
        QApplication.sendEvent(
            view.viewport(),
            QContextMenuEvent(QContextMenuEvent.Reason.Mouse, center, view.mapToGlobal(center)),
        )
        menu = await wait_until(lambda: view.menu)
        assert [a.text() for a in menu.actions()] == [
            PIN_TEXT, MARK_TEXT, RENAME_TEXT, INSTRUCTIONS_TEXT, EXPORT_TEXT, DELETE_TEXT
        ]  # fmt: skip
        choose(menu, RENAME_TEXT)
        dialog = await wait_until(lambda: window.findChild(RenameConversationDialog))
        assert dialog.editor.text().startswith("I prefer green tea")
        dialog.editor.setText("   ")
        dialog.save_button.click()
        assert dialog.error_label.isVisible() and dialog.isVisible()
        dialog.editor.setText("  Morning   drinks ")
        dialog.save_button.click()
        await wait_until(lambda: conversations.index(0).data() == "Morning drinks")
        await wait_until(lambda: window.conversation_title.text() == "Morning drinks")

        # The "⋯" on the row: Delete… asks first; Delete removes the chat.
        rect = more_rect(view.visualRect(conversations.index(0)))
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        menu = await wait_until(lambda: view.menu)
        choose(menu, DELETE_TEXT)
        confirm = await wait_until(lambda: window.findChild(DeleteConversationDialog))
        assert DELETE_CONVERSATION_TEXT in [label.text() for label in confirm.findChildren(QLabel)]
        QTest.mouseClick(confirm.delete_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: conversations.rowCount() == 0)
        await wait_until(lambda: window.conversation_title.text() == "New conversation")
        assert session.chat.conversation_id is None
        assert window.messages_model.rowCount() == 0
        assert window.conversation_area.currentWidget() is window.conversations_empty_state
        # What ACAI learned from it is still in the panel.
        assert FACT in rows(window.memories_model, MemoryRoles.CONTENT)
        return session.profile, conversation_id

    profile, conversation_id = run_in_session(
        gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario
    )
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("select count(*) from messages").fetchone() == (0,)
        assert db.execute("select count(*) from conversations").fetchone() == (0,)
        assert db.execute(
            "select content, status, conversation_id from memories where content = ?", [FACT]
        ).fetchall() == [(FACT, "active", None)]
    assert conversation_id is not None


def test_deleting_the_chat_being_answered_stops_the_answer_first(qapp, tmp_path, fake_openai):
    fake_openai.script(Reply(text="one two three four five six seven eight nine", chunk_delay=0.3))

    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        send(window, "Count slowly please")
        await wait_until(
            lambda: messages.rowCount() == 2 and messages.index(1).data(MessageRoles.CONTENT)
        )
        assert window.composer.busy
        session.conversations.delete(session.chat.conversation_id)
        await wait_until(lambda: window.conversations_model.rowCount() == 0)
        await wait_until(lambda: not window.composer.busy)
        assert messages.rowCount() == 0
        assert session.tasks.get("turn") is None
        return session.profile

    profile = run_in_session(
        gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario
    )
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("select count(*) from messages").fetchone() == (0,)
        # A processor job already running when the chat went ends without an error.
        assert db.execute(
            "select count(*) from jobs where status = 'failed' or last_error is not null"
        ).fetchone() == (0,)


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_export_from_the_list_writes_markdown_or_json(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    target = tmp_path / "exports"
    target.mkdir()

    async def scenario(session: AppController):
        from PySide6.QtWidgets import QFileDialog

        window = session.window
        conversations = window.conversations_model
        view = window.conversation_list
        send(window, "I prefer green tea in the morning. <script>alert(1)</script>")
        await wait_until(lambda: conversations.rowCount() == 1 and not window.composer.busy)
        # Learning from the message says so in the status bar: let it finish first, so
        # its note doesn't replace the export's messages checked below.
        await wait_until(lambda: FACT in rows(window.memories_model, MemoryRoles.CONTENT))
        await session.assistant.runner.wait_idle(timeout=30)
        conversation_id = session.chat.conversation_id

        view.open_menu(0, view.visualRect(conversations.index(0)).center())
        choose(await wait_until(lambda: view.menu), EXPORT_TEXT)
        dialog = await wait_until(lambda: window.findChild(QFileDialog))
        suggested = dialog.selectedFiles()[0].rsplit("/", 1)[-1]
        assert suggested.startswith("I-prefer-green-tea") and suggested.endswith(".md")
        assert "<" not in suggested and " " not in suggested  # named from the title, safely
        # The user picks a place and a name: the file is written in the background.
        dialog.fileSelected.emit(str(target / "tea.md"))
        await wait_until(lambda: (target / "tea.md").exists())
        await wait_until(lambda: "Exported 2 messages" in window.statusBar().currentMessage())
        dialog.close()
        json_file = str(target / "tea.json")
        session.conversations.export(conversation_id, json_file, "json")
        await wait_until(lambda: (target / "tea.json").exists())
        # A place that can't be written: said in the status bar, nothing else changes.
        session.conversations.export(conversation_id, str(target / "missing" / "tea.md"), "md")
        await wait_until(lambda: "Cannot write" in window.statusBar().currentMessage())

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)
    markdown = (target / "tea.md").read_text(encoding="utf-8")
    assert "```text\nI prefer green tea in the morning. <script>alert(1)</script>\n```" in markdown
    exported = json.loads((target / "tea.json").read_text(encoding="utf-8"))
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"]
    # Nothing half-written is left behind, here or where the write failed.
    assert sorted(target.iterdir()) == [target / "tea.json", target / "tea.md"]


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_deleting_another_chat_keeps_the_shown_one_selected(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario(session: AppController):
        window = session.window
        conversations = window.conversations_model
        view = window.conversation_list
        send(window, "First chat: what is a good name for a cat?")
        await wait_until(lambda: conversations.rowCount() == 1 and not window.composer.busy)
        first = session.chat.conversation_id
        session.conversations.new_chat()
        await wait_until(lambda: session.chat.conversation_id is None)
        send(window, "Second chat: how long do I boil an egg?")
        await wait_until(lambda: conversations.rowCount() == 2 and not window.composer.busy)
        shown = session.chat.conversation_id
        assert shown != first

        def selected_id():
            rows = view.selectionModel().selectedRows()
            return [conversations.conversation_at(i.row()).id for i in rows] == [shown]

        await wait_until(selected_id)
        # Delete the other chat from its row's context menu.
        row = conversations.row_of(first)
        center = view.visualRect(conversations.index(row)).center()
        QApplication.sendEvent(
            view.viewport(),
            QContextMenuEvent(QContextMenuEvent.Reason.Mouse, center, view.mapToGlobal(center)),
        )
        menu = await wait_until(lambda: view.menu)
        choose(menu, DELETE_TEXT)
        confirm = await wait_until(lambda: window.findChild(DeleteConversationDialog))
        QTest.mouseClick(confirm.delete_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: conversations.rowCount() == 1)
        # The chat on screen is still the one highlighted in the list.
        assert session.chat.conversation_id == shown
        await wait_until(selected_id)

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)
