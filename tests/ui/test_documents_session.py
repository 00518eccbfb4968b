"""The Documents tab over the real core: a real SQLite profile in tmp_path, indexing by
the real job runner (embeddings from the scripted server), real widgets offscreen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from acai_desktop.core.documents.readers import MAX_FILE_BYTES
from acai_desktop.ui.models.documents_model import DocumentRoles
from acai_desktop.ui.session import GuiSession
from acai_desktop.ui.untrusted import tooltip_text
from tests.support.assistant import configure_profile
from tests.support.gui import run_in_session, wait_until

HANDBOOK = (
    "# Team handbook\n\n## Deployment\n\nDeployments happen on Tuesdays after the standup.\n\n"
    "## Holidays\n\nBook holidays two weeks ahead in the HR portal.\n"
)
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

    async def scenario(session: GuiSession):
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
        # An unchanged file is not indexed again; the status bar says so.
        assert panel.select_document(row_of_name(model, "handbook.md").data(DocumentRoles.ID))
        QTest.mouseClick(panel.reindex_button, Qt.MouseButton.LeftButton)
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

    run_in_session(GuiSession(profile), scenario)


def test_adding_a_folder_shows_progress_and_stops(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    folder = tmp_path / "notes"
    (folder / "deeper").mkdir(parents=True)
    total = 300
    for n in range(total):
        place = folder / "deeper" if n % 2 else folder
        (place / f"note-{n:03}.txt").write_text(f"Note {n} about topic {n % 7}.\n")

    async def scenario(session: GuiSession):
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
        QTest.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not panel.folder_bar.isVisible())
        await wait_until(lambda: "stopped" in window.statusBar().currentMessage())
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

    run_in_session(GuiSession(profile), scenario)
