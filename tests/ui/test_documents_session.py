"""The Documents tab over the real core: a real SQLite profile in tmp_path, indexing by
the real job runner (embeddings from the scripted server), real widgets offscreen."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.documents.model import ScopeMode
from acai_desktop.core.documents.prompt_block import EVIDENCE_BLOCK_START, EVIDENCE_PREAMBLE
from acai_desktop.core.documents.readers import MAX_FILE_BYTES
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.local_only_text import MARK_TEXT
from acai_desktop.ui.models.documents_model import DocumentRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.untrusted import tooltip_text
from acai_desktop.ui.widgets.chat_view import SOURCES
from acai_desktop.ui.widgets.document_dialogs import DocumentScopeDialog, PassageDialog
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_lab.scripted_model import call_kind
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.memory import shared_embedder
from tests.ui.test_chat_session import click_action

HANDBOOK = (
    "# Team handbook\n\n## Deployment\n\nDeployments happen on Tuesdays after the standup.\n\n"
    "## Holidays\n\nBook holidays two weeks ahead in the HR portal.\n"
)
# The block as it opens in the prompt (the system prompt names the tag in its prose).
BLOCK_OPENING = f"{EVIDENCE_BLOCK_START}\n{EVIDENCE_PREAMBLE}"
QUESTION = "When do deployments happen according to the handbook?"
#: A file name a careless view would render as markup (and load an image for).
RICH_NAME = "<img src=x><b>notes.md"


def statuses(model) -> dict[str, str]:
    return {
        model.index(r).data(DocumentRoles.NAME): model.index(r).data(DocumentRoles.STATUS)
        for r in range(model.rowCount())
    }


def row_of_name(model, name: str):
    for r in range(model.rowCount()):
        if model.index(r).data(DocumentRoles.NAME) == name:
            return model.index(r)
    return None


def seen_states(model) -> list[tuple[str, str]]:
    """Every (name, status) the model showed, as it showed it."""
    seen: list[tuple[str, str]] = []

    def record(*_args) -> None:
        for r in range(model.rowCount()):
            index = model.index(r)
            state = (index.data(DocumentRoles.NAME), index.data(DocumentRoles.STATUS))
            if not seen or state not in seen[-model.rowCount() :]:
                seen.append(state)

    for signal in (model.rowsInserted, model.dataChanged):
        signal.connect(record)
    return seen


def drop_files(widget, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    action = Qt.DropAction.CopyAction
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(QPoint(20, 20), action, mime, buttons, modifiers)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(20, 20), action, mime, buttons, modifiers)
    QApplication.sendEvent(widget, drop)
    assert drop.isAccepted()


def db_documents(profile) -> dict[str, tuple]:
    with sqlite3.connect(profile.database_path) as db:
        rows = db.execute("select name, status, chunk_count, error from documents").fetchall()
    return {name: tuple(rest) for name, *rest in rows}


def test_add_by_dialog_and_drop_then_errors_remove_and_reindex(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    files = tmp_path / "files"
    files.mkdir()
    handbook = files / "handbook.md"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    rich = files / RICH_NAME
    rich.write_text("Plain notes about the garden and its roses.\n", encoding="utf-8")
    binary = files / "blob.txt"
    binary.write_bytes(b"text\x00\x01\x02 more")
    huge = files / "huge.txt"
    with huge.open("wb") as f:  # sparse: over the limit without writing 50 MB
        f.truncate(MAX_FILE_BYTES + 1)

    async def scenario(session: AppController):
        window = session.window
        panel, model = window.documents_panel, window.documents_model
        assert window.side_tabs.tabText(1) == "Documents"
        window.side_tabs.setCurrentWidget(panel)
        assert panel.area.currentWidget() is panel.empty_state
        seen = seen_states(model)

        # The Files… button opens a file dialog (open(), not exec()); the user picks one.
        QTest.mouseClick(panel.add_files_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: panel.findChild(QFileDialog))
        assert dialog.isVisible() and dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
        dialog.filesSelected.emit([str(handbook)])
        dialog.close()
        await wait_until(lambda: statuses(model).get("handbook.md") == "ready")
        # Said once the work is done, not "Indexing…" any more.
        await wait_until(lambda: window.statusBar().currentMessage() == "Indexed 1 document.")
        assert ("handbook.md", "queued") in seen
        assert seen.index(("handbook.md", "queued")) < seen.index(("handbook.md", "ready"))
        index = row_of_name(model, "handbook.md")
        chunks = index.data(DocumentRoles.CHUNKS)
        assert chunks >= 1 and f"{chunks} chunk" in index.data()
        assert db_documents(profile)["handbook.md"][:2] == ("ready", chunks)
        assert panel.area.currentWidget() is panel.list and panel.count_label.text() == "1"

        # Dropped onto the tab: a file with markup in its name, a binary file, a huge one.
        drop_files(panel, [rich, binary, huge])
        await wait_until(lambda: statuses(model).get(RICH_NAME) == "ready")
        await wait_until(lambda: statuses(model).get("blob.txt") == "error")
        assert ("blob.txt", "queued") in seen
        blob = row_of_name(model, "blob.txt")
        assert "binary file" in blob.data(DocumentRoles.ERROR)
        assert blob.data().endswith(blob.data(DocumentRoles.ERROR))  # shown on its row
        # The huge file is refused before it is read: said in the tab, no row.
        assert "huge.txt" not in statuses(model)
        assert panel.notice.isVisible() and "the limit is 50 MB" in panel.notice.text()
        assert panel.notice.textFormat() == Qt.TextFormat.PlainText
        assert "not added" in window.statusBar().currentMessage()

        # Untrusted names are item text (never rich), and tooltips go through the plain
        # delegate, which escapes them.
        rich_index = row_of_name(model, RICH_NAME)
        assert rich_index.data().startswith(RICH_NAME + "\n")
        tip = rich_index.data(Qt.ItemDataRole.ToolTipRole)
        assert RICH_NAME in tip and "&lt;img" in tooltip_text(tip)

        # Re-index: the binary file, fixed on disk, is indexed this time.
        binary.write_text("Now it is text about backups on Fridays.\n", encoding="utf-8")
        assert panel.select_document(blob.data(DocumentRoles.ID))
        assert panel.actions_bar.isVisible()
        QTest.mouseClick(panel.reindex_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: statuses(model).get("blob.txt") == "ready")
        assert db_documents(profile)["blob.txt"][0] == "ready"
        # An unchanged file is not indexed again; the status bar says so. (From the
        # row's context menu, which selects the row it was opened on.)
        handbook_index = row_of_name(model, "handbook.md")
        menu = panel.row_menu(handbook_index)  # what a right click pops up
        assert [a.text() for a in menu.actions()] == ["Re-index", MARK_TEXT, "Remove…"]
        assert panel.selected_document_id() == handbook_index.data(DocumentRoles.ID)
        menu.actions()[0].trigger()
        menu.close()
        await wait_until(lambda: "has not changed" in window.statusBar().currentMessage())

        # Delete asks first (a plain message box naming the file), then removes.
        assert panel.select_document(rich_index.data(DocumentRoles.ID))
        window.activateWindow()
        panel.list.setFocus()
        await wait_until(panel.list.hasFocus)
        QTest.keyClick(panel.list, Qt.Key.Key_Delete)
        box = await wait_until(lambda: panel.findChild(QMessageBox))
        assert box.textFormat() == Qt.TextFormat.PlainText and RICH_NAME in box.text()
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        QTest.mouseClick(cancel, Qt.MouseButton.LeftButton)
        await wait_until(lambda: panel.findChild(QMessageBox) is None)
        assert row_of_name(model, RICH_NAME) is not None  # cancelled: kept
        QTest.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
        box = await wait_until(lambda: panel.findChild(QMessageBox))
        remove = next(b for b in box.buttons() if b.text() == "Remove")
        QTest.mouseClick(remove, Qt.MouseButton.LeftButton)
        await wait_until(lambda: row_of_name(model, RICH_NAME) is None)
        assert RICH_NAME not in db_documents(profile)
        assert sorted(statuses(model)) == ["blob.txt", "handbook.md"]

    run_in_session(gui_session(profile), scenario)


def test_adding_a_folder_shows_progress_and_stops(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    folder = tmp_path / "notes"
    (folder / "deeper").mkdir(parents=True)
    total = 300
    for n in range(total):
        place = folder / "deeper" if n % 2 else folder
        (place / f"note-{n:03}.txt").write_text(f"Note {n} about topic {n % 7}.\n")

    async def scenario(session: AppController):
        window = session.window
        panel, model = window.documents_panel, window.documents_model
        window.documents_action.trigger()  # Ctrl+Shift+D: the Documents tab
        assert window.side_tabs.currentWidget() is panel
        QTest.mouseClick(panel.add_folder_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: panel.findChild(QFileDialog))
        assert dialog.fileMode() == QFileDialog.FileMode.Directory
        dialog.fileSelected.emit(str(folder))
        dialog.close()
        await wait_until(lambda: panel.folder_bar.isVisible() and panel.folder_progress.value())
        assert panel.folder_progress.maximum() == total  # every file, sub-folders included
        # Every status line is kept: a later one (a job's progress) may replace the
        # "stopped" line before a busy machine gets to look at it.
        said: list[str] = []
        window.statusBar().messageChanged.connect(said.append)
        QTest.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not panel.folder_bar.isVisible())
        await wait_until(lambda: any("stopped" in line for line in said))
        # The walk ended early, and what it queued but had not indexed was taken back.
        await wait_until(lambda: "queued" not in statuses(model).values())
        assert 0 < model.rowCount() < total, model.rowCount()
        states = set(statuses(model).values())
        assert states <= {"ready", "error", "indexing"}
        stopped = [
            model.index(r).data(DocumentRoles.ERROR)
            for r in range(model.rowCount())
            if model.index(r).data(DocumentRoles.STATUS) == "error"
        ]
        assert all(e.startswith("Stopped before it was indexed") for e in stopped)
        assert len(db_documents(profile)) == model.rowCount()

    run_in_session(gui_session(profile), scenario)


async def seed_chats_and_handbook(profile, handbook: Path) -> tuple[int, int]:
    """Two conversations (the one with a message is shown at start) and an indexed
    handbook; returns (shown chat, other chat)."""
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
    )
    try:
        other = await assistant.conversations.create("Other chat")
        shown = await assistant.conversations.create("Handbook chat")
        await assistant.conversations.add_message(shown.id, "user", "Hello there.")
        report = await assistant.documents.add([handbook])
        await assistant.documents.index_now(report.job_ids)
        return shown.id, other.id
    finally:
        await assistant.close()


def chat_prompts(server) -> list[str]:
    """The last user message of each chat turn the scripted server received: the turn's
    documents, memories and the user's words (the prompt's stable start holds none)."""
    turns = [r.json for r in server.chat_requests() if call_kind(r.json) == "chat"]
    return [turn["messages"][-1]["content"] for turn in turns]


def send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)


def test_scope_per_chat_keeps_passages_out_and_sources_open_the_passage(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    handbook = tmp_path / "handbook.md"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    shown_id, other_id = asyncio.run(seed_chats_and_handbook(profile, handbook))

    async def scenario(session: AppController):
        window = session.window
        panel, messages = window.documents_panel, window.messages_model
        documents = session.assistant.documents
        window.documents_action.trigger()
        assert session.chat.conversation_id == shown_id
        await wait_until(lambda: panel.scope is not None)
        assert panel.scope_box.isEnabled() and panel.scope_box.currentText() == "All documents"

        # "No documents": saved for this chat, and the next turn's prompt quotes nothing.
        panel.scope_box.setCurrentIndex(2)
        panel.scope_box.activated.emit(2)
        await wait_until(lambda: panel.scope.mode == ScopeMode.NONE)
        assert (await documents.scope(shown_id)).mode == ScopeMode.NONE
        # The chat header says so too (it is hidden while a chat uses all documents).
        assert window.scope_badge.isVisible() and window.scope_badge.text() == "No documents"
        send(window, QUESTION)
        await wait_until(lambda: messages.rowCount() == 3 and not window.composer.busy)
        assert BLOCK_OPENING not in chat_prompts(fake_openai)[-1]
        assert "Tuesdays" not in chat_prompts(fake_openai)[-1]

        # Switching chats shows each one's own scope.
        session.conversations.open(other_id)
        await wait_until(lambda: session.chat.conversation_id == other_id)
        await wait_until(lambda: panel.scope_box.currentText() == "All documents")
        assert not window.scope_badge.isVisible()
        session.conversations.open(shown_id)
        await wait_until(lambda: panel.scope_box.currentText() == "No documents")
        # A new chat is not on disk yet: it uses all documents, and can't be changed.
        QTest.mouseClick(window.new_chat_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not panel.scope_box.isEnabled())
        assert panel.scope_box.currentText() == "All documents"
        session.conversations.open(shown_id)
        await wait_until(lambda: panel.scope_box.currentText() == "No documents")

        # "Some…": tick the handbook; the next turn quotes it.
        panel.scope_box.setCurrentIndex(1)
        panel.scope_box.activated.emit(1)
        picker = await wait_until(lambda: panel.findChild(DocumentScopeDialog))
        assert picker.list.count() == 1 and picker.list.item(0).text() == "handbook.md"
        picker.list.item(0).setCheckState(Qt.CheckState.Checked)
        picker.buttons.button(picker.buttons.StandardButton.Ok).click()
        await wait_until(lambda: panel.scope.mode == ScopeMode.SOME)
        assert panel.scope_box.currentText() == "Some (1)…"
        assert window.scope_badge.text() == "1 document"
        assert (await documents.scope(shown_id)).document_ids == panel.scope.document_ids
        send(window, QUESTION)
        await wait_until(lambda: messages.rowCount() == 5 and not window.composer.busy)
        prompt = chat_prompts(fake_openai)[-1]
        assert BLOCK_OPENING in prompt and "Tuesdays" in prompt

        # The answer's sources list the passage; a click opens it, as plain text.
        answer_row = messages.rowCount() - 1
        await wait_until(lambda: messages.index(answer_row).data(MessageRoles.SOURCES_COUNT))
        click_action(window.chat_view, answer_row, SOURCES)
        sources = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: "Sources: handbook.md" in sources.browser.toPlainText())
        assert "DOCUMENTS" in sources.browser.toPlainText()
        sources.browser.anchorClicked.emit(QUrl("acai-passage:1"))
        passage = await wait_until(lambda: window.findChild(PassageDialog))
        await wait_until(lambda: "Tuesdays" in passage.text.toPlainText())
        assert passage.where.text() == "handbook.md"
        assert passage.where.textFormat() == Qt.TextFormat.PlainText
        assert "Deployment" in passage.heading.text()
        assert passage.text.isReadOnly()
        passage.close()
        sources.close()

        # Opened again later, the answer counts its passages among its sources.
        answer_id = messages.index(answer_row).data(MessageRoles.ID)
        provenance = session.assistant._provenance
        quoted = await provenance.evidence_of_answer(answer_id)
        used = await provenance.sources_of_answer(answer_id)
        assert quoted and quoted[0].document_name == "handbook.md"
        session.conversations.open(other_id)
        await wait_until(lambda: session.chat.conversation_id == other_id)
        session.conversations.open(shown_id)
        await wait_until(lambda: messages.rowCount() == 5)
        count = messages.index(answer_row).data(MessageRoles.SOURCES_COUNT)
        assert count == len(quoted) + len(used)

    run_in_session(gui_session(profile), scenario)


def test_documents_are_indexed_in_a_window_without_a_model(qapp, tmp_path):
    # No usable model: the job runner (for the processors) is not started, yet documents
    # are embedded on this computer, so adding one still indexes it.
    profile = Profile.at(tmp_path / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset("local", local_model_path=str(tmp_path / "missing.gguf")),
    )
    handbook = tmp_path / "handbook.md"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    folder = tmp_path / "more"
    (folder / "deeper").mkdir(parents=True)
    (folder / "deeper" / "extra.md").write_text("# Extra\n\nMore notes.\n", encoding="utf-8")

    async def scenario(session: AppController):
        window = session.window
        assert session.assistant.model_problem is not None and window.banner.isVisible()
        window.documents_action.trigger()
        # A file and a folder dropped together: the folder is added recursively.
        drop_files(window.documents_panel, [handbook, folder])
        model = window.documents_model
        await wait_until(lambda: statuses(model).get("handbook.md") == "ready")
        await wait_until(lambda: statuses(model).get("extra.md") == "ready")
        assert db_documents(profile)["handbook.md"][0] == "ready"
        assert sorted(db_documents(profile)) == ["extra.md", "handbook.md"]

    run_in_session(gui_session(profile), scenario)
