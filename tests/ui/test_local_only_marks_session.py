"""Marking local only from the window (issue 42, item 4), over the real core: a memory
from its actions, a chat from its menu, a project from its header's menu and its
dialog, a document from its row's menu. Each click is stored, each row shows the
marker, and a memory kept with a marked chat or project says why; unmarking a chat or
project asks first, and Cancel changes nothing."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.local_only_text import (
    BECAUSE_OF_CHAT,
    BECAUSE_OF_PROJECT,
    LOCAL_ONLY_MARK,
    LOCAL_ONLY_TIP,
    MARK_TEXT,
    UNMARK_ACTION,
    UNMARK_TEXT,
)
from acai_desktop.ui.models.conversations_model import ConversationRoles
from acai_desktop.ui.models.documents_model import DocumentRoles
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.widgets.memory_card import badges_of
from acai_desktop.ui.widgets.project_dialogs import ProjectDialog
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_projects_session import action, click_row

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


def stored(profile, table: str, row_id: int) -> bool:
    with sqlite3.connect(profile.database_path) as db:
        return bool(
            db.execute(f"select local_only from {table} where id = ?", [row_id]).fetchone()[0]
        )


def row_index(model, row_id, role):
    return next(
        model.index(r) for r in range(model.rowCount()) if model.index(r).data(role) == row_id
    )


def answer(box: QMessageBox, text: str) -> None:
    [button] = [b for b in box.buttons() if b.text() == text]
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def marked_on_card(memories, memory_id: int) -> str | None:
    row = memories.row_of(memory_id)
    return None if row is None else memories.index(row).data(MemoryRoles.LOCAL_ONLY)


def test_mark_a_memory_and_a_chat_from_the_window(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, assistant = session.window, session.assistant
        chat = await assistant.conversations.create("Health questions")
        await assistant.conversations.add_message(chat.id, "user", "My blood type is AB.")
        own = await assistant.memories.remember("The user's bank is Nordbank", explicit=True)
        learned = await assistant.memories.remember(
            "The user's blood type is AB", conversation_id=chat.id, explicit=True
        )
        memories, panel = window.memories_model, window.memory_panel
        await wait_until(lambda: memories.row_of(learned.id) is not None)

        # A memory, from its actions: the button, the flag, the card's badge and tooltip.
        assert panel.select_memory(own.id)
        button = panel.actions_bar.local_only_button
        assert button.isVisible() and button.text() == MARK_TEXT
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: marked_on_card(memories, own.id) == "own")
        assert stored(profile, "memories", own.id)
        card = memories.index(memories.row_of(own.id))
        assert (LOCAL_ONLY_MARK, "local_only_ink", "local_only_bg") in badges_of(card)
        assert LOCAL_ONLY_TIP in card.data(Qt.ItemDataRole.ToolTipRole)
        assert button.text() == UNMARK_TEXT
        assert [e.action for e in await assistant.memories.history(own.id)][-1] == (
            "marked local only"
        )
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)  # a memory unmarks at once
        await wait_until(lambda: marked_on_card(memories, own.id) is None)
        assert not stored(profile, "memories", own.id)
        assert marked_on_card(memories, learned.id) is None

        # A chat, from its menu: its row is marked, and so is what was learned in it.
        chats, view = window.conversations_model, window.conversation_list
        await wait_until(lambda: chats.row_of(chat.id) is not None)
        click_row(view, chats.row_of(chat.id), on_more=True)
        action(await wait_until(lambda: view.menu), MARK_TEXT).trigger()
        row = lambda: row_index(chats, chat.id, ConversationRoles.ID)  # noqa: E731
        await wait_until(lambda: row().data(ConversationRoles.LOCAL_ONLY) == "own")
        assert stored(profile, "conversations", chat.id)
        assert LOCAL_ONLY_TIP in row().data(Qt.ItemDataRole.ToolTipRole)
        await wait_until(lambda: marked_on_card(memories, learned.id) == "chat")
        tip = memories.index(memories.row_of(learned.id)).data(Qt.ItemDataRole.ToolTipRole)
        assert BECAUSE_OF_CHAT in tip
        assert panel.select_memory(learned.id)
        assert panel.actions_bar.local_only_button.text() == MARK_TEXT  # not its own mark

        # Unmarking asks first: Cancel keeps the mark, Unmark takes it off.
        click_row(view, row().row(), on_more=True)
        action(await wait_until(lambda: view.menu), UNMARK_TEXT).trigger()
        question = session.conversations.question
        assert "may then reach models that run elsewhere" in question.text()
        answer(question, "Cancel")
        await wait_until(lambda: not question.isVisible())
        assert stored(profile, "conversations", chat.id)
        click_row(view, row().row(), on_more=True)
        action(await wait_until(lambda: view.menu), UNMARK_TEXT).trigger()
        answer(session.conversations.question, UNMARK_ACTION)
        await wait_until(lambda: row().data(ConversationRoles.LOCAL_ONLY) is None)
        assert not stored(profile, "conversations", chat.id)
        await wait_until(lambda: marked_on_card(memories, learned.id) is None)

    run_in_session(gui_session(profile), scenario)


def test_mark_a_project_and_a_document_from_the_window(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    notes = tmp_path / "salaries.md"
    notes.write_text("# Salaries\n\nThe team's salaries for next year.\n", encoding="utf-8")

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, assistant = session.window, session.assistant
        chats, view = window.conversations_model, window.conversation_list

        # + Project with its box ticked: stored, its header and its chats marked.
        QTest.mouseClick(window.new_project_button, Qt.MouseButton.LeftButton)
        dialog = session.projects.dialog
        assert isinstance(dialog, ProjectDialog) and not dialog.local_only_box.isChecked()
        dialog.name_editor.setText("Payroll")
        dialog.local_only_box.setChecked(True)
        QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        project = await wait_until(
            lambda: next((p for p in chats.projects() if p.local_only), None)
        )
        assert stored(profile, "projects", project.id)
        header = lambda: row_index(chats, project.id, ConversationRoles.PROJECT_ID)  # noqa: E731
        assert header().data(ConversationRoles.HEADER)
        assert header().data(ConversationRoles.LOCAL_ONLY) == "own"
        chat = await assistant.conversations.create("Raises")
        await assistant.projects.move_conversation(chat.id, project.id)
        kept = await assistant.memories.remember("Raises are 3% next year", explicit=True)
        await assistant.projects.demote(kept.id, project.id)
        await wait_until(
            lambda: (
                chats.row_of(chat.id) is not None
                and chats.index(chats.row_of(chat.id)).data(ConversationRoles.LOCAL_ONLY)
                == "project"
            )
        )
        memories = window.memories_model
        await wait_until(lambda: marked_on_card(memories, kept.id) == "project")
        tip = memories.index(memories.row_of(kept.id)).data(Qt.ItemDataRole.ToolTipRole)
        assert BECAUSE_OF_PROJECT in tip

        # A document, from its row's menu; then kept to the project it stays marked.
        report = await assistant.documents.add([notes])
        document_id = report.queued[0].id
        documents, panel = window.documents_model, window.documents_panel
        await wait_until(lambda: documents.row_of(document_id) is not None)
        index = lambda: documents.index(documents.row_of(document_id))  # noqa: E731
        assert index().data(DocumentRoles.LOCAL_ONLY) is None
        action(panel.row_menu(index()), MARK_TEXT).trigger()
        await wait_until(lambda: index().data(DocumentRoles.LOCAL_ONLY) == "own")
        assert stored(profile, "documents", document_id)
        assert index().data().splitlines()[1].endswith(f"· {LOCAL_ONLY_MARK}")
        assert LOCAL_ONLY_TIP in index().data(Qt.ItemDataRole.ToolTipRole)
        action(panel.row_menu(index()), UNMARK_TEXT).trigger()
        await wait_until(lambda: index().data(DocumentRoles.LOCAL_ONLY) is None)
        assert not stored(profile, "documents", document_id)
        await assistant.documents.set_project(document_id, project.id)
        await wait_until(lambda: index().data(DocumentRoles.LOCAL_ONLY) == "project")

        # Unmarked from the project's dialog: asked first, then every mark goes.
        click_row(view, header().row())
        action(await wait_until(lambda: view.menu), "Rename project…").trigger()
        dialog = session.projects.dialog
        assert dialog.local_only_box.isChecked()
        dialog.local_only_box.setChecked(False)
        QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        question = await wait_until(
            lambda: isinstance(session.projects.dialog, QMessageBox) and session.projects.dialog
        )
        assert "Its chats, memories and documents may then reach models" in question.text()
        assert stored(profile, "projects", project.id)  # nothing changes before the answer
        answer(question, UNMARK_ACTION)
        await wait_until(lambda: header().data(ConversationRoles.LOCAL_ONLY) is None)
        assert not stored(profile, "projects", project.id)
        await wait_until(lambda: marked_on_card(memories, kept.id) is None)
        await wait_until(lambda: index().data(DocumentRoles.LOCAL_ONLY) is None)

        # Marked again from its header's menu, at once.
        click_row(view, header().row())
        action(await wait_until(lambda: view.menu), MARK_TEXT).trigger()
        await wait_until(lambda: header().data(ConversationRoles.LOCAL_ONLY) == "own")
        assert stored(profile, "projects", project.id)

    run_in_session(gui_session(profile), scenario)
