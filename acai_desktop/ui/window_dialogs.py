"""The main window's dialogs: each opens modeless (``open()``, never ``exec()``) and is
returned to the controller that asked for it, which wires its requests to its own slots.
Those shown one at a time also say whether they were just created (wire them once).

Each dialog's module is imported when it first opens, not with the window: every start
paid for all of them before the first paint (issue 22, start-up measured from outside;
tests/test_startup_imports.py keeps it so)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt

from acai_desktop.ui.models.conversations_model import UNTITLED

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog, QWidget

    from acai_desktop.core.records.conversations import ConversationHit
    from acai_desktop.ui.theme import Theme
    from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog

    # Loaded when opened (none is needed to paint; settings' need pydantic).
    from acai_desktop.ui.widgets.dialogs import (
        DeleteConversationDialog,
        MemoryEditDialog,
        NoteDialog,
        RenameConversationDialog,
    )
    from acai_desktop.ui.widgets.document_dialogs import PassageDialog
    from acai_desktop.ui.widgets.first_start_dialog import FirstStartDialog
    from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog, ProvenanceDialog
    from acai_desktop.ui.widgets.instructions_widgets import ChatInstructionsDialog
    from acai_desktop.ui.widgets.memory_health import MemoryHealthDialog
    from acai_desktop.ui.widgets.search_dialog import SearchDialog
    from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
    from acai_desktop.ui.widgets.why_not_dialog import WhyNotDialog
    from acai_desktop.ui.window_parts import WindowParts


#: The export dialog's file types and the suffix each one gives a bare name.
EXPORT_FILTERS = {"Markdown (*.md)": "md", "JSON (*.json)": "json"}


def export_file_name(title: str) -> str:
    """A file name from a conversation's title: letters, digits and dashes only."""
    stem = re.sub(r"[^\w]+", "-", title.strip(), flags=re.UNICODE).strip("-")[:60]
    return f"{stem or 'conversation'}.md"


class WindowDialogs:
    def __init__(self, window: WindowParts) -> None:
        self.window = window
        self.settings: SettingsDialog | None = None
        self.note: NoteDialog | None = None
        self.search_dialog: SearchDialog | None = None
        self.health: MemoryHealthDialog | None = None
        self.chat_settings_dialog: ChatSettingsDialog | None = None
        #: The colours in use, for what paints itself (the memory health charts).
        self.theme: Theme | None = None

    def _open(self, dialog) -> None:
        """Show ``dialog`` window-modal (``open()``, never ``exec()``: a nested loop would
        stall the asyncio loop); closing it gives the focus back to its opener."""
        self.window.focus_return.opened(dialog)
        dialog.open()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.health is not None and shiboken6.isValid(self.health):
            self.health.set_theme(theme)

    def memory_health(self) -> tuple[MemoryHealthDialog, bool]:
        """The memory health window (one at a time) and whether it was just created.

        Its module imports pyqtgraph, so it is loaded on first use: start-up never pays
        for the charts."""
        dialog = self.health
        if dialog is not None and shiboken6.isValid(dialog):
            if dialog.isVisible():
                dialog.raise_()
                dialog.activateWindow()
            else:  # closed earlier: the same window, with its last results
                self.window.focus_return.opened(dialog)
                dialog.show()
            return dialog, False
        from acai_desktop.ui.theme import load_theme
        from acai_desktop.ui.widgets.memory_health import MemoryHealthDialog

        dialog = MemoryHealthDialog(self.window)
        dialog.set_theme(self.theme or load_theme())
        events = self.window.events
        for news in (
            events.memory_added,
            events.memory_changed,
            events.memory_removed,
            events.memories_changed_in_bulk,
        ):
            news.connect(dialog.schedule_refresh)
        self.health = dialog
        self._open(dialog)
        return dialog, True

    def rename_conversation(self, conversation_id: int) -> RenameConversationDialog | None:
        model = self.window.conversations_model
        row = model.row_of(conversation_id)
        if row is None:
            return None
        from acai_desktop.ui.widgets.dialogs import RenameConversationDialog

        dialog = RenameConversationDialog(
            conversation_id, model.conversation_at(row).title, self.window
        )
        self._open(dialog)
        return dialog

    def chat_instructions(self, conversation_id: int, profile, own) -> ChatInstructionsDialog:
        """One chat's custom instructions: its own, or the profile's (from Settings)."""
        from acai_desktop.ui.widgets.instructions_widgets import ChatInstructionsDialog

        dialog = ChatInstructionsDialog(conversation_id, profile, own, self.window)
        self._open(dialog)
        return dialog

    def chat_settings(
        self, profile, own, listed, *, from_settings=None, automatic=None, local_only=None
    ) -> ChatSettingsDialog:
        """The chat on screen's model settings: its own, or the ones from Settings, and
        whether it is local only. One at a time: one still open (for this chat or
        another) gives way to it."""
        from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog

        previous = self.chat_settings_dialog
        if previous is not None and shiboken6.isValid(previous):
            previous.reject()
        dialog = self.chat_settings_dialog = ChatSettingsDialog(
            profile,
            own,
            listed,
            self.window,
            from_settings=from_settings,
            automatic=automatic,
            local_only=local_only,
        )
        self._open(dialog)
        return dialog

    def delete_conversation(self, conversation_id: int) -> DeleteConversationDialog | None:
        model = self.window.conversations_model
        row = model.row_of(conversation_id)
        if row is None:
            return None
        title = model.conversation_at(row).title or UNTITLED
        from acai_desktop.ui.widgets.dialogs import DeleteConversationDialog

        dialog = DeleteConversationDialog(conversation_id, title, self.window)
        self._open(dialog)
        return dialog

    def export_conversation(
        self, conversation_id: int, export: Callable[[int, str, str], None]
    ) -> QFileDialog:
        """Ask where to save it (Markdown or JSON, from the file type chosen)."""
        model = self.window.conversations_model
        row = model.row_of(conversation_id)
        title = model.conversation_at(row).title if row is not None else ""
        from PySide6.QtWidgets import QFileDialog

        from acai_desktop.ui.widgets.file_dialogs import file_dialog

        dialog = file_dialog(self.window, "Export conversation")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(list(EXPORT_FILTERS))
        dialog.setDefaultSuffix("md")
        dialog.selectFile(export_file_name(title))

        def on_filter(name: str) -> None:
            dialog.setDefaultSuffix(EXPORT_FILTERS[name])

        def on_file(path: str) -> None:
            chosen = "json" if path.lower().endswith(".json") else "md"
            export(conversation_id, path, chosen)

        dialog.filterSelected.connect(on_filter)
        dialog.fileSelected.connect(on_file)
        self._open(dialog)
        return dialog

    def search(self) -> tuple[SearchDialog, bool]:
        """The search box over conversations (one at a time: Ctrl+K again focuses it)."""
        dialog = self.search_dialog
        if dialog is not None and shiboken6.isValid(dialog) and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            dialog.input.setFocus()
            dialog.input.selectAll()
            return dialog, False
        from acai_desktop.ui.widgets.search_dialog import SearchDialog

        dialog = SearchDialog(self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.search_dialog = dialog
        self._open(dialog)
        dialog.input.setFocus()
        return dialog, True

    def show_search_results(self, query: str, hits: list[ConversationHit]) -> None:
        """What the search for ``query`` found, if the search box still shows it."""
        dialog = self.search_dialog
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.show_results(query, hits)

    def edit_memory(self, memory_id: int) -> MemoryEditDialog | None:
        model = self.window.memories_model
        row = model.row_of(memory_id)
        if row is None:
            return None
        from acai_desktop.ui.widgets.dialogs import MemoryEditDialog

        dialog = MemoryEditDialog(model.item_at(row), self.window)
        self._open(dialog)
        return dialog

    def add_note(self) -> tuple[NoteDialog, bool]:
        if self.note is not None and shiboken6.isValid(self.note):
            self.note.raise_()
            self.note.activateWindow()
            return self.note, False
        from acai_desktop.ui.widgets.dialogs import NoteDialog

        self.note = NoteDialog(self.window)
        self._open(self.note)
        return self.note, True

    def memory_details(self, memory_id: int) -> MemoryDetailsDialog:
        from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog

        dialog = MemoryDetailsDialog(memory_id, self.window)
        self._open(dialog)
        return dialog

    def answer_sources(self, answer_id: int) -> ProvenanceDialog:
        from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog

        dialog = ProvenanceDialog(answer_id, self.window)
        self._open(dialog)
        return dialog

    def why_not(self, answer_id: int, question: str, opener: QWidget) -> WhyNotDialog:
        """ "Why not …?" for an answer, above the dialog that opened it (its Sources)."""
        from acai_desktop.ui.widgets.why_not_dialog import WhyNotDialog

        dialog = WhyNotDialog(answer_id, question, opener)
        self._open(dialog)
        return dialog

    def passage(self, citation: str) -> PassageDialog:
        """A passage an answer quoted, read-only (filled when it has been read)."""
        from acai_desktop.ui.widgets.document_dialogs import PassageDialog

        dialog = PassageDialog(citation, self.window)
        self._open(dialog)
        return dialog

    def first_start(self, options: list) -> FirstStartDialog:
        """The first start's question: which of the models found answers."""
        from acai_desktop.ui.widgets.first_start_dialog import FirstStartDialog

        dialog = FirstStartDialog(options, self.window)
        self._open(dialog)
        return dialog

    def open_settings(
        self,
        settings,
        *,
        providers_with_key: set[str] | frozenset[str] = frozenset(),
        key_warning: str | None = None,
        preferences=None,
        instructions=None,
        store=None,
        store_password_saved: bool = False,
        automatic_budget=None,
    ) -> tuple[SettingsDialog, bool]:
        """The settings dialog (one at a time: a second request raises the open one)."""
        if self.settings is not None and shiboken6.isValid(self.settings):
            self.settings.raise_()
            self.settings.activateWindow()
            return self.settings, False
        from acai_desktop.ui.widgets.settings_dialog import SettingsDialog

        window = self.window
        dialog = SettingsDialog(
            settings,
            providers_with_key=providers_with_key,
            key_warning=key_warning,
            preferences=preferences,
            instructions=instructions,
            store=store,
            store_password_saved=store_password_saved,
            automatic_budget=automatic_budget,
            parent=window,
        )
        self.settings = dialog
        self._open(dialog)
        return dialog, True
