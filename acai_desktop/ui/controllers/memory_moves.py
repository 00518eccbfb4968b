"""File → Import memories from another assistant… and File → Export memories…: memory
that moves between assistants (issue 43, item 3). The work is the core's
(core/memory/list_import.py, core/memory/memory_block.py, core/memory/transfer.py);
here a list or a file is chosen, the status bar says how far an import is, and its
report opens when it ends."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtWidgets import QDialog, QFileDialog

from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.controllers.base import Controller, Services, in_background, short
from acai_desktop.ui.controllers.imports import file_menu
from acai_desktop.ui.widgets.file_dialogs import file_dialog

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.memory_moves_dialogs import MemoryImportDialog

log = logging.getLogger(__name__)

IMPORT_TASK = "memory-import"
STILL_IMPORTING = "Memories are being imported; the next import can start when its report is shown."
IMPORT_ACTION = "Import memories from another assistant…"
EXPORT_ACTION = "Export memories…"
#: The export's file types: (format, suffix, as the status bar names it).
EXPORT_FILTERS = {
    "Plain text, for Claude or ChatGPT (*.txt)": ("text", "txt", "plain text"),
    "Markdown (*.md)": ("markdown", "md", "Markdown"),
    "ACAI Desktop backup, every memory (*.json)": ("json", "json", "JSON"),
}
LIST_FILTERS = ["Text (*.txt *.md)", "All files (*)"]


def export_format_of(path: str) -> tuple[str, str]:
    """The format a chosen file name asks for (by its suffix; plain text otherwise)."""
    for file_format, suffix, label in EXPORT_FILTERS.values():
        if path.lower().endswith(f".{suffix}"):
            return file_format, label
    return "text", "plain text"


class MemoryMovesController(Controller):
    """Its widgets: the two File menu entries, the import dialog, the file dialogs and
    the import's report."""

    def __init__(self, window: MainWindow, services: Services) -> None:
        super().__init__(services)
        self.window = window
        menu = file_menu(window)
        menu.addSeparator()
        menu.addAction(IMPORT_ACTION).triggered.connect(self.ask_import)
        menu.addAction(EXPORT_ACTION).triggered.connect(self.ask_export)

    def _show(self, dialog: QDialog) -> None:
        """Window-modal with ``open()`` (never ``exec()``); focus returns when it closes."""
        self.window.focus_return.opened(dialog)
        dialog.open()

    # -- import -----------------------------------------------------------------------

    def ask_import(self, *_checked) -> MemoryImportDialog | None:
        if self.services.open_or_say_why() is None:
            return None
        if self.services.tasks.get(IMPORT_TASK) is not None:
            self.services.say(STILL_IMPORTING, 8000)
            return None
        from acai_desktop.ui.widgets.memory_moves_dialogs import MemoryImportDialog

        dialog = MemoryImportDialog(self.window)
        dialog.file_requested.connect(lambda: self.choose_list_file(dialog))
        dialog.import_requested.connect(self.import_list)
        self._show(dialog)
        return dialog

    def choose_list_file(self, dialog: MemoryImportDialog) -> QFileDialog:
        files = file_dialog(dialog, "Open a list of memories")
        files.setFileMode(QFileDialog.FileMode.ExistingFile)
        files.setNameFilters(LIST_FILTERS)
        files.fileSelected.connect(
            lambda path: self.services.run(self.read_list_file(dialog, path), "memory-list-read")
        )
        files.open()
        return files

    async def read_list_file(self, dialog: MemoryImportDialog, path: str) -> None:
        """Read the file off the UI thread, then show it in the dialog (if still open)."""
        from acai_desktop.core.memory.list_import import read_list_file

        try:
            text = await asyncio.to_thread(read_list_file, path)
        except AcaiError as refusal:
            if shiboken6.isValid(dialog):
                dialog.show_error(str(refusal))
            return
        if shiboken6.isValid(dialog):
            dialog.set_text(text)

    def import_list(self, list_format: str, text: str) -> None:
        """Run the import, one at a time: two at once could both find a line new."""
        assistant = self.services.open_or_say_why()
        if assistant is None:
            return
        if self.services.tasks.get(IMPORT_TASK) is not None:
            self.services.say(STILL_IMPORTING, 8000)
            return
        self.services.run(
            self._import_list(assistant, list_format, text), IMPORT_TASK, key=IMPORT_TASK
        )

    async def _import_list(self, assistant: Assistant, list_format: str, text: str) -> None:
        from acai_desktop.core.memory.assistant_formats import ListFormat
        from acai_desktop.core.memory.list_import import import_memory_list

        self.say("Importing memories…")

        def progress(done: int, total: int) -> None:
            self.say(f"Importing memories… {done} of {total}")

        try:
            report = await import_memory_list(
                assistant.memories, text, ListFormat(list_format), progress=progress
            )
        except AcaiError:
            raise  # a refusal in words of its own: the status bar shows it as it is
        except Exception as error:
            # A fault of ours must not leave "Importing memories… 3 of 9" standing.
            log.exception("importing a memory list failed")
            self.services.say(
                f"The memory import stopped: {short(f'{type(error).__name__}: {error}', 200)}. "
                "The memories taken in so far are kept; importing the list again adds only "
                "what is missing.",
                30_000,
            )
            return
        summary, _, details = report.text().partition("\n")
        self.say(summary)
        from acai_desktop.ui.widgets.memory_moves_dialogs import ImportReportDialog

        self._show(ImportReportDialog(summary, details.strip("\n"), self.window))

    # -- export -----------------------------------------------------------------------

    def ask_export(self, *_checked) -> QFileDialog | None:
        if self.services.open_or_say_why() is None:
            return None
        dialog = file_dialog(self.window, "Export memories")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(list(EXPORT_FILTERS))
        dialog.setDefaultSuffix("txt")
        dialog.selectFile("memories.txt")
        dialog.filterSelected.connect(lambda name: dialog.setDefaultSuffix(EXPORT_FILTERS[name][1]))
        dialog.fileSelected.connect(self.export)
        self._show(dialog)
        return dialog

    @in_background("memory-export")
    async def export(self, assistant: Assistant, path: str) -> None:
        file_format, label = export_format_of(path)
        if file_format == "json":
            from acai_desktop.core.memory.transfer import export_memories

            count = await export_memories(assistant.memories, path)
            self.say(f"Exported {count} memories to {path} (every memory, as a backup).")
            return
        from acai_desktop.core.memory.memory_block import (
            BlockFormat,
            exported_text,
            write_memory_block,
        )

        block = await write_memory_block(assistant.memories, path, BlockFormat(file_format))
        self.say(exported_text(block.exported, path, label, block.local_only_left_out))
