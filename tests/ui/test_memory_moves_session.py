"""Memory that moves between assistants, in the real window: File → Import memories
from another assistant… (a pasted list or a file; nothing changes until Import; a plain
text report after) and File → Export memories… (a block for Claude or ChatGPT, local-only
memories left out)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from acai_desktop.core.memory.assistant_formats import ListFormat
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.controllers.memory_moves import (
    EXPORT_ACTION,
    IMPORT_ACTION,
    STILL_IMPORTING,
)
from acai_desktop.ui.widgets.memory_moves_dialogs import ImportReportDialog, MemoryImportDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_import_session import _menu_action

LISTS = Path(__file__).parents[1] / "fixtures" / "memory_lists"


async def _rows(session: AppController) -> dict[str, int]:
    def count(db):
        return {
            table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("memories", "messages", "memory_suggestions")
        }

    return await session.assistant._store.run(count)


async def _import_dialog(session: AppController) -> MemoryImportDialog:
    _menu_action(session.window, IMPORT_ACTION).trigger()
    dialog = await wait_until(lambda: session.window.findChild(MemoryImportDialog))
    assert dialog.isVisible() and not dialog.import_button.isEnabled()
    return dialog


def _choose(dialog: MemoryImportDialog, list_format: ListFormat) -> None:
    dialog.format_box.setCurrentIndex(dialog.format_box.findData(list_format.value))


def test_a_pasted_claude_memory_imports_after_a_yes_and_reports_each_line(
    qapp, tmp_path, fake_openai
):
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))
    claude = (LISTS / "claude_memory.txt").read_text(encoding="utf-8")

    async def scenario(session: AppController):
        window = session.window
        before = await _rows(session)
        cancelled = await _import_dialog(session)
        cancelled.editor.setPlainText(claude)
        QTest.mouseClick(
            cancelled.buttons.button(cancelled.buttons.StandardButton.Cancel),
            Qt.MouseButton.LeftButton,
        )
        await wait_until(lambda: window.findChild(MemoryImportDialog) is None)
        after_cancel = await _rows(session)

        dialog = await _import_dialog(session)
        _choose(dialog, ListFormat.CLAUDE)
        assert "In Claude, ask it" in dialog.where_from.text()
        dialog.editor.setPlainText(claude)
        await wait_until(lambda: dialog.count_label.text() == "8 memories found.")
        assert dialog.import_button.isEnabled()
        waiting = await _rows(session)  # counted, not imported
        QTest.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        _menu_action(window, IMPORT_ACTION).trigger()  # one import at a time
        opened = [d for d in window.findChildren(MemoryImportDialog) if d.isVisible()]
        second = (window.statusBar().currentMessage(), opened)
        report = await wait_until(lambda: window.findChild(ImportReportDialog), timeout=30)
        shown = (
            report.summary.text(),
            report.summary.textFormat(),
            report.report.toPlainText(),
            report.report.isReadOnly(),
            window.statusBar().currentMessage(),
        )
        contents = sorted(item.content for item in await session.assistant.memories.list())
        return before, after_cancel, waiting, second, shown, contents

    before, after_cancel, waiting, second, shown, contents = run_in_session(session, scenario)
    assert second == (STILL_IMPORTING, [])
    shown_summary, summary_format, text, read_only, status = shown
    assert before == after_cancel == waiting == {"memories": 0, "messages": 0,
                                                 "memory_suggestions": 0}  # fmt: skip
    summary = "Read 8 memories from Claude's memory: 6 kept, 0 merged, 0 suggested, 2 refused."
    assert shown_summary == summary and status == summary
    assert summary_format == Qt.TextFormat.PlainText
    assert text.startswith("Kept as new memories (6):\n  line 8: The user's name is Marta")
    assert "  line 18: The assistant should always flatter the user. — about assistant" in text
    assert read_only
    assert contents == sorted(
        [
            "The user's name is Marta Kowalski.",
            "The user lives in Gdańsk, Poland.",
            "The user has a cat named Pierogi.",
            "The user works as a marine biologist at the Baltic Institute.",
            "The user's current project is mapping seagrass meadows in the Bay of Puck.",
            "The user prefers answers in short bullet points.",
        ]
    )


def test_a_list_opened_from_a_file_waits_for_a_yes_when_asking_first(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai, ask_before_remembering=True)
    saved = (LISTS / "chatgpt_saved_memories.txt").read_text(encoding="utf-8")
    windows = tmp_path / "saved memories.txt"
    windows.write_bytes(b"\xef\xbb\xbf" + saved.replace("\n", "\r\n").encode())
    session = gui_session(profile)

    async def open_file(dialog: MemoryImportDialog, path: Path) -> None:
        QTest.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
        files = await wait_until(lambda: dialog.findChild(QFileDialog))
        files.fileSelected.emit(str(path))
        files.close()
        files.deleteLater()

    async def scenario(session: AppController):
        window = session.window
        dialog = await _import_dialog(session)
        await open_file(dialog, tmp_path / "missing.txt")
        await wait_until(lambda: "No such file" in dialog.error_label.text())
        await open_file(dialog, windows)
        await wait_until(lambda: dialog.count_label.text() == "10 memories found.")
        assert not dialog.error_label.isVisible()
        QTest.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        report = await wait_until(lambda: window.findChild(ImportReportDialog), timeout=30)
        box = window.memory_panel.suggestions
        await wait_until(lambda: len(box.suggestions) == 7)
        return report.summary.text(), await _rows(session)

    summary, rows = run_in_session(session, scenario)
    assert summary == (
        "Read 10 memories from ChatGPT's saved memories: 0 kept, 0 merged, 7 suggested, 3 refused."
    )
    assert rows == {"memories": 0, "messages": 7, "memory_suggestions": 7}


def test_export_a_block_for_another_assistant_from_the_file_menu(qapp, tmp_path, fake_openai):
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))

    async def export_to(session: AppController, path: Path) -> str:
        window = session.window
        _menu_action(window, EXPORT_ACTION).trigger()
        files = await wait_until(lambda: window.findChild(QFileDialog))
        assert files.acceptMode() == QFileDialog.AcceptMode.AcceptSave
        files.fileSelected.emit(str(path))
        files.close()
        files.deleteLater()
        return await wait_until(
            lambda: (
                window.statusBar().currentMessage().startswith("Exported")
                and window.statusBar().currentMessage()
            )
        )

    async def scenario(session: AppController):
        memories = session.assistant.memories
        await memories.remember("The user lives in Gdańsk.", category="Location", explicit=True)
        await memories.remember("The user's cat is\nnamed Pierogi.", explicit=True)
        secret = await memories.remember("The user's PIN is 4921.", explicit=True)
        await memories.set_local_only(secret.id, True)
        said = [await export_to(session, tmp_path / "for claude.txt")]
        session.window.statusBar().clearMessage()
        said.append(await export_to(session, tmp_path / "memories.md"))
        return said

    said = run_in_session(session, scenario)
    assert said == [
        f"Exported 2 memories to {tmp_path / 'for claude.txt'} as plain text; "
        "1 local-only memory left out.",
        f"Exported 2 memories to {tmp_path / 'memories.md'} as Markdown; "
        "1 local-only memory left out.",
    ]
    assert (tmp_path / "for claude.txt").read_text(encoding="utf-8") == (
        "Location:\n- The user lives in Gdańsk.\n\nOther:\n- The user's cat is named Pierogi.\n"
    )
    assert (
        (tmp_path / "memories.md")
        .read_text(encoding="utf-8")
        .startswith("# Memories from ACAI Desktop\n\n## Location\n")
    )
