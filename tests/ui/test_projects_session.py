"""Projects in the window, over the real core and the scripted model server: *+ Project*
creates one and opens a new chat in it; what that chat teaches is learned into the
project (a badge in the memory panel, its filter); the panel promotes it to everywhere
and demotes it back; a chat moves out of the project from its menu; deleting the
project asks first and says what happens, then keeps the chat and forgets the memory."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.controllers.projects import USE_PROFILE_IN_PROJECT_TEXT
from acai_desktop.ui.models.conversations_model import OUTSIDE_PROJECTS, ConversationRoles
from acai_desktop.ui.models.documents_model import DocumentRoles
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.widgets.conversation_list import (
    DELETE_PROJECT_TEXT,
    MOVE_TO_PROJECT_TEXT,
    NO_PROJECT_TEXT,
    PROJECT_INSTRUCTIONS_TEXT,
    more_rect,
)
from acai_desktop.ui.widgets.documents_panel import EVERY_CHAT_TEXT, KEEP_TO_PROJECT_TEXT
from acai_desktop.ui.widgets.instructions_widgets import ChatInstructionsDialog
from acai_desktop.ui.widgets.memory_actions import DEMOTE_TEXT, PROMOTE_TEXT
from acai_desktop.ui.widgets.memory_card import badges_of
from acai_desktop.ui.widgets.memory_panel import EVERYWHERE_TEXT
from acai_desktop.ui.widgets.project_dialogs import DELETE_CONTENTS_TEXT, KEEP_CONTENTS_TEXT
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

TAUGHT = "I am allergic to kiwifruit."
LEARNED = "The user is allergic to kiwifruit"


def rows(model) -> list[tuple[bool, str]]:
    """(is a header, title) of each row of the sidebar."""
    return [
        (bool(model.index(r).data(ConversationRoles.HEADER)), model.index(r).data(Qt.DisplayRole))
        for r in range(model.rowCount())
    ]


def click_row(view, row: int, *, on_more: bool = False) -> None:
    rect = view.visualRect(view.model().index(row))
    at = more_rect(rect).center() if on_more else rect.center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=at)


def action(menu, text: str):
    [found] = [a for a in menu.actions() if a.text() == text]
    return found


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_a_project_from_the_sidebar_to_the_memory_panel(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window, assistant = session.window, session.assistant
        model, view, panel = (
            window.conversations_model,
            window.conversation_list,
            window.memory_panel,
        )
        await wait_until(lambda: session.assistant is not None)
        assistant = session.assistant
        assert not panel.project_box.isVisible()  # no project: the panel is as before

        # + Project: a name, then a new chat in it.
        QTest.mouseClick(window.new_project_button, Qt.MouseButton.LeftButton)
        dialog = session.projects.dialog
        dialog.name_editor.setText("  Garden  ")
        dialog.model_editor.setText("garden-model")
        QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: rows(model) == [(True, "Garden"), (True, OUTSIDE_PROJECTS)])
        (project,) = await assistant.projects.list()
        assert project.default_model == "garden-model"
        await wait_until(lambda: session.chat.new_chat_project_id == project.id)
        # The new chat's header names the project's model (chat → project → profile).
        await wait_until(
            lambda: "Model: garden-model (from project)" in window.chat_settings_button.toolTip()
        )
        assert panel.project_box.findText("Garden") >= 0

        window.composer.input.setPlainText(TAUGHT)
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not window.composer.busy and model.rowCount() == 3)
        chat_id = model.index(1).data(ConversationRoles.ID)
        assert model.index(1).data(ConversationRoles.PROJECT_ID) == project.id
        await assistant.runner.wait_idle(timeout=60)

        # Learned into the project: its badge, and the panel's project filter.
        memories = window.memories_model
        await wait_until(lambda: memories.row_of(learned_id(memories)) is not None)
        memory_id = learned_id(memories)
        index = memories.index(memories.row_of(memory_id))
        assert index.data(MemoryRoles.PROJECT) == "Garden"
        assert "▸ Garden" in [text for text, _, _ in badges_of(index)]
        panel.project_box.setCurrentIndex(panel.project_box.findText(EVERYWHERE_TEXT))
        await wait_until(lambda: memories.row_of(memory_id) is None)
        panel.project_box.setCurrentIndex(panel.project_box.findText("Garden"))
        await wait_until(lambda: memories.row_of(memory_id) is not None)

        # Promote from the panel, then demote: each change is the memory's history.
        assert panel.select_memory(memory_id)
        scope_button = panel.actions_bar.scope_button
        assert scope_button.isVisible() and scope_button.text() == PROMOTE_TEXT
        QTest.mouseClick(scope_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: memories.row_of(memory_id) is None)  # no longer Garden's
        assert (await assistant.memories.get(memory_id)).project_id is None
        panel.project_box.setCurrentIndex(0)  # every project
        await wait_until(lambda: memories.row_of(memory_id) is not None)
        assert memories.index(memories.row_of(memory_id)).data(MemoryRoles.PROJECT) is None
        assert panel.select_memory(memory_id)
        assert scope_button.text() == DEMOTE_TEXT
        QTest.mouseClick(scope_button, Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: memories.index(memories.row_of(memory_id)).data(MemoryRoles.PROJECT) == "Garden"
        )

        # The project's instructions, from its header: its chats carry them.
        click_row(view, 0)
        action(await wait_until(lambda: view.menu), PROJECT_INSTRUCTIONS_TEXT).trigger()
        instructions = await wait_until(
            lambda: (
                isinstance(session.projects.dialog, ChatInstructionsDialog)
                and session.projects.dialog
            )
        )
        assert instructions.use_profile.text() == USE_PROFILE_IN_PROJECT_TEXT
        instructions.use_profile.setChecked(False)
        instructions.fields.respond.setPlainText("Answer like a gardener.")
        changed_before = model.projects()[0].updated_at
        instructions.buttons.accepted.emit()
        await wait_until(lambda: not instructions.isVisible())
        await wait_until(lambda: model.projects()[0].updated_at != changed_before)
        saved = await assistant.projects.instructions(project.id)
        assert saved.respond == "Answer like a gardener."

        # Move the chat out of the project from its menu.
        click_row(view, 1, on_more=True)
        menu = await wait_until(lambda: view.menu)
        move = action(menu, MOVE_TO_PROJECT_TEXT).menu()
        action(move, NO_PROJECT_TEXT).trigger()
        await wait_until(
            lambda: (
                rows(model)[-1] == (False, model.index(2).data(Qt.DisplayRole))
                and model.index(2).data(ConversationRoles.ID) == chat_id
            )
        )
        # ... and back, then delete the project from its header: asked first.
        await assistant.projects.move_conversation(chat_id, project.id)
        await wait_until(lambda: model.index(1).data(ConversationRoles.ID) == chat_id)
        click_row(view, 0)
        header_menu = await wait_until(lambda: view.menu)
        action(header_menu, DELETE_PROJECT_TEXT).trigger()
        question = await wait_until(
            lambda: isinstance(session.projects.dialog, QMessageBox) and session.projects.dialog
        )
        text = question.text()
        assert "It holds 1 chat, 1 memory, 0 documents." in text
        assert KEEP_CONTENTS_TEXT in text and DELETE_CONTENTS_TEXT in text
        assert question.defaultButton() is question.button(QMessageBox.StandardButton.Cancel)
        [keep] = [b for b in question.buttons() if b.text() == KEEP_CONTENTS_TEXT]
        QTest.mouseClick(keep, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not any(header for header, _ in rows(model)))
        assert [model.index(r).data(ConversationRoles.ID) for r in range(model.rowCount())] == [
            chat_id
        ]
        await wait_until(
            lambda: (
                memories.row_of(memory_id) is not None
                and memories.index(memories.row_of(memory_id)).data(MemoryRoles.PROJECT) is None
            )
        )
        assert not panel.project_box.isVisible()

        # Deleted with its chats: the chat on screen goes, the memory is forgotten.
        project = await assistant.projects.create("Taxes")
        await assistant.projects.move_conversation(chat_id, project.id)
        session.conversations.open(chat_id)
        await wait_until(lambda: session.chat.conversation_id == chat_id)
        await wait_until(lambda: rows(model)[0] == (True, "Taxes"))
        click_row(view, 0)
        action(await wait_until(lambda: view.menu), DELETE_PROJECT_TEXT).trigger()
        question = await wait_until(
            lambda: (
                isinstance(session.projects.dialog, QMessageBox)
                and session.projects.dialog is not question
                and session.projects.dialog
            )
        )
        [delete] = [b for b in question.buttons() if b.text() == DELETE_CONTENTS_TEXT]
        QTest.mouseClick(delete, Qt.MouseButton.LeftButton)
        await wait_until(lambda: model.rowCount() == 0)
        await wait_until(lambda: memories.row_of(memory_id) is None)
        assert session.chat.conversation_id is None  # a new chat instead
        return memory_id, chat_id

    memory_id, chat_id = run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        actions = [r[0] for r in db.execute(
            "SELECT action FROM memory_events WHERE memory_id = ? ORDER BY id", [memory_id]
        )]  # fmt: skip
        assert db.execute("SELECT count(*) FROM projects").fetchone() == (0,)
        assert db.execute(
            "SELECT count(*) FROM conversations WHERE id = ?", [chat_id]
        ).fetchone() == (0,)
    assert actions[-1] == "forgotten with its project"
    assert "left its deleted project" in actions
    assert "promoted to everywhere" in actions and "kept to its project" in actions


def learned_id(memories) -> int | None:
    for row in range(memories.rowCount()):
        if memories.index(row).data(MemoryRoles.CONTENT) == LEARNED:
            return memories.index(row).data(MemoryRoles.ID)
    return None


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_a_document_is_kept_to_a_project_from_its_menu(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    handbook = tmp_path / "orchard.md"
    handbook.write_text("# Orchard\n\nThe kiwifruit orchard opens in spring.\n", "utf-8")

    async def scenario(session: AppController):
        window, assistant = session.window, session.assistant
        panel, model = window.documents_panel, window.documents_model
        report = await assistant.documents.add([handbook])
        await assistant.runner.wait_for(report.job_ids, timeout=60)
        project = await assistant.projects.create("Garden")
        await wait_until(lambda: model.rowCount() == 1 and panel.projects)
        menu = panel.row_menu(model.index(0))
        keep = action(menu, KEEP_TO_PROJECT_TEXT).menu()
        assert [a.text() for a in keep.actions()] == ["Garden", EVERY_CHAT_TEXT]
        assert action(keep, EVERY_CHAT_TEXT).isChecked()
        action(keep, "Garden").trigger()
        menu.close()
        await wait_until(
            lambda: model.index(0).data(DocumentRoles.DOCUMENT).project_id == project.id
        )
        return project.id

    project_id = run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("SELECT project_id FROM documents").fetchall() == [(project_id,)]
