"""The main window: conversations on the left, the chat in the centre, memory and documents
on the right (two tabs).

(About 400 lines: it owns every widget and model of the window and wires all their signals
in one method, so that the wiring can be read in one place; the panes, dialogs and actions
live in their own modules.)

The window only shows state and asks for things through its signals; the session
(:mod:`acai_desktop.ui.session` and its action groups) decides what a request does,
and tells the window what to show through intent-level methods (``show_conversation``,
``focus_composer``, ``show_reconnecting``, ``offer_undo`` …). It owns the Qt models and
the :class:`EventBridge` that feeds them core events. Every signal of the window is
wired in :meth:`MainWindow._connect_signals`; its panes are built in
:mod:`acai_desktop.ui.window_panes` and its dialogs opened by :class:`WindowDialogs`.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSplitter,
    QWidget,
)

from acai_desktop.core.records import (
    Conversation,
    ConversationHit,
    Job,
    Message,
    Suggestion,
)
from acai_desktop.ui.event_bridge import EventBridge
from acai_desktop.ui.models.conversations_model import (
    UNTITLED,
    ConversationsModel,
)
from acai_desktop.ui.models.memories_model import MemoriesModel
from acai_desktop.ui.models.messages_model import MessagesModel
from acai_desktop.ui.theme import app_icon
from acai_desktop.ui.untrusted import plain_label, tooltip_text
from acai_desktop.ui.widgets.job_status import JobStatus
from acai_desktop.ui.widgets.memory_panel import EMPTY_TEXT as MEMORY_EMPTY_TEXT
from acai_desktop.ui.widgets.memory_panel import EMPTY_TITLE as MEMORY_EMPTY_TITLE
from acai_desktop.ui.widgets.undo_offer import UNDO_SECONDS, UndoOffer
from acai_desktop.ui.window_dialogs import WindowDialogs
from acai_desktop.ui.window_panes import (
    NO_MODEL_TEXT,
    TRANSCRIPT_EMPTY_TEXT,
    TRANSCRIPT_EMPTY_TITLE,
    build_chat_pane,
    build_shortcuts,
    build_side_panel,
    build_sidebar,
    show_side_tab,
)

if TYPE_CHECKING:  # loaded with the assistant: not needed to paint
    from acai_desktop.core.llm.model_status import ModelStatus

WINDOW_TITLE = "ACAI Desktop"
DEFAULT_SIZE = QSize(1280, 800)
TEMPORARY_EMPTY_TITLE = "A temporary chat"
TEMPORARY_EMPTY_TEXT = (
    "ACAI still uses what it knows about you, but learns nothing from this chat: "
    "no memory is written from it, and it is deleted when you close ACAI."
)
__all__ = ["MEMORY_EMPTY_TEXT", "MEMORY_EMPTY_TITLE", "MainWindow"]
CONNECTING_TEXT = "Connecting…"
#: The narrowest the chat may get while a side panel shows beside it; below that the
#: side panels fold by themselves (the memory panel first) and come back with room.
CHAT_MIN_WIDTH = 480
#: The side panels' widths as the window opens them (the splitter's first sizes).
SIDEBAR_WIDTH, SIDE_PANEL_WIDTH = 250, 330
CONVERSATIONS, MEMORY = "conversations", "memory"


def _label(text: str, object_name: str) -> QLabel:
    # Plain: the header shows a conversation's title, the banner a server's error body.
    return plain_label(text, object_name)


class MainWindow(QMainWindow):
    send_requested = Signal(str)
    stop_requested = Signal()
    new_conversation_requested = Signal()
    open_conversation_requested = Signal(int)
    retry_requested = Signal(int)  # answer id
    answer_sources_requested = Signal(int)  # answer id
    recalled_message_open_requested = Signal(int, int)  # conversation id, message id
    passage_open_requested = Signal(object)  # EvidenceSource (a passage an answer quoted)
    conversation_shown = Signal(object)  # conversation id, or None for a new chat
    memory_save_requested = Signal(int, str)  # memory id, new text
    memory_pin_requested = Signal(int, bool)  # memory id, pinned
    memory_forget_requested = Signal(int)
    memory_restore_requested = Signal(int)
    memory_details_requested = Signal(int)
    #: Select a memory in the memory panel and show it (from an answer's sources).
    memory_show_requested = Signal(int)
    memory_resolve_requested = Signal(int, str)  # conflict id, "new" or "old" (kept)
    memory_search_requested = Signal(object)  # PanelQuery (add what is close in meaning)
    suggestion_accept_requested = Signal(int)  # suggestion id
    suggestion_dismiss_requested = Signal(int)  # suggestion id
    reconnect_requested = Signal()
    jobs_retry_requested = Signal(list)  # ids of the failed jobs to queue again
    new_temporary_conversation_requested = Signal()
    note_save_requested = Signal(str)
    settings_requested = Signal()
    memory_health_requested = Signal()
    settings_save_requested = Signal(object, str)  # ModelSettings, API key ("" keeps it)
    settings_detect_requested = Signal(str, str)  # provider, address typed for it
    preferences_save_requested = Signal(object)  # UiPreferences
    conversation_rename_requested = Signal(int, str)  # conversation id, new title
    conversation_delete_requested = Signal(int)  # conversation id (confirmed)
    conversation_export_requested = Signal(int, str, str)  # id, file path, "md" or "json"
    conversation_search_requested = Signal(str)  # the query typed in the search box
    conversation_pin_requested = Signal(int, bool)  # conversation id, pinned or not
    instructions_save_requested = Signal(object)  # CustomInstructions (the profile's)
    chat_instructions_requested = Signal(int)  # conversation id: open its dialog
    chat_instructions_save_requested = Signal(int, object)  # id, CustomInstructions | None
    #: A message was added to it: its title and place in the list may have changed.
    conversation_refresh_requested = Signal(int)
    quit_requested = Signal()
    panels_changed = Signal(bool, bool)  # conversations shown, memory panel shown
    #: The user is typing a message (the next turn is coming).
    draft_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        self.setWindowIcon(app_icon())
        # Half a laptop screen; below the three panes' own widths, hide a side panel.
        self.setMinimumSize(640, 480)
        self.resize(DEFAULT_SIZE)
        self._quit_announced = False
        #: The side panels the user wants (the saved choice); the width may fold them.
        self._wanted_panels = {CONVERSATIONS: True, MEMORY: True}
        #: The panel the user opened last: the one kept when only one fits.
        self._last_opened: str | None = None
        #: Opens the dialogs (one settings and one note dialog at a time).
        self.dialogs = WindowDialogs(self)

        self.events = EventBridge(self)
        self.messages_model = MessagesModel(self)
        self.memories_model = MemoriesModel(self)
        self.conversations_model = ConversationsModel(self)

        self.sidebar = build_sidebar(self)
        self.chat_pane = build_chat_pane(self)
        self.side_tabs = build_side_panel(self)  # memory_panel, documents_panel
        self.memory_search = self.memory_panel.search

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setHandleWidth(1)
        self.splitter.setChildrenCollapsible(False)
        for pane in (self.sidebar, self.chat_pane, self.side_tabs):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes(
            [
                SIDEBAR_WIDTH,
                DEFAULT_SIZE.width() - SIDEBAR_WIDTH - SIDE_PANEL_WIDTH,
                SIDE_PANEL_WIDTH,
            ]
        )
        self.setCentralWidget(self.splitter)

        build_shortcuts(self)

        self.undo = UndoOffer(self)
        self.undo_button = self.undo.button
        self.statusBar().addPermanentWidget(self.undo_button)
        self.job_status = JobStatus(self)
        self.jobs_label = self.job_status.running_label
        self.failed_jobs_label = self.job_status.failed_label
        self.retry_jobs_button = self.job_status.retry_button
        for widget in (self.jobs_label, self.failed_jobs_label, self.retry_jobs_button):
            self.statusBar().addPermanentWidget(widget)
        self.statusBar().showMessage("Ready")
        self._set_tab_order()
        self._connect_signals()
        # The user's work is the message they are about to write: the cursor waits there.
        self.composer.input.setFocus()

    def _set_tab_order(self) -> None:
        """Left to right as seen: conversations, the chat, the composer, the memories."""
        chain = [
            self.new_chat_button,
            self.temporary_chat_button,
            self.search_button,
            self.conversation_list,
            self.memory_health_button,
            self.settings_button,
            self.chat_view,
            self.composer.input,
            self.composer.stop_button,
            self.composer.send_button,
            self.memory_panel.add_note_button,
            self.memory_panel.search,
            self.memory_panel.filter_box,
            self.memory_panel.list,
            *self.documents_panel.focus_chain(),
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # ------------------------------------------------------------------ wiring

    def _connect_signals(self) -> None:
        # Core news, through the bridge, into the Qt models and the window.
        self.events.message_added.connect(self.messages_model.on_message_added)
        self.events.message_added.connect(self._on_events_message_added)
        self.events.message_updated.connect(self.messages_model.on_message_updated)
        self.events.answer_finished.connect(self.messages_model.on_answer_finished)
        self.events.memory_added.connect(self.memories_model.on_memory_added)
        # A memory learned during a search may be on its topic: search again, once quiet.
        self.events.memory_added.connect(self.memory_panel.search_again_soon)
        self.events.memory_changed.connect(self.memories_model.on_memory_changed)
        self.events.memory_removed.connect(self.memories_model.on_memory_removed)
        self.events.job_status_changed.connect(self.job_status.on_job_status_changed)
        self.events.embedding_progress_changed.connect(self._on_events_embedding_progress_changed)
        for signal in (self.messages_model.rowsInserted, self.messages_model.modelReset):
            signal.connect(self._on_messages_model_changed)
        for signal in (
            self.conversations_model.rowsInserted,
            self.conversations_model.rowsRemoved,
            self.conversations_model.modelReset,
        ):
            signal.connect(self._on_conversations_model_changed)

        # The user's requests.
        self.composer.send_requested.connect(self.send_requested)
        self.composer.stop_requested.connect(self.stop_requested)
        self.composer.input.textChanged.connect(self._on_composer_text_changed)
        self.new_chat_button.clicked.connect(self.new_conversation_requested)
        self.new_chat_action.triggered.connect(self.new_conversation_requested)
        self.temporary_chat_button.clicked.connect(self.new_temporary_conversation_requested)
        self.temporary_chat_action.triggered.connect(self.new_temporary_conversation_requested)
        self.search_button.clicked.connect(self.dialogs.search)
        self.search_action.triggered.connect(self.dialogs.search)
        self.settings_button.clicked.connect(self.settings_requested)
        self.memory_health_button.clicked.connect(self.memory_health_requested)
        self.memory_health_action.triggered.connect(self.memory_health_requested)
        self.settings_action.triggered.connect(self.settings_requested)
        self.banner_settings_button.clicked.connect(self.settings_requested)
        self.memory_panel.add_note_requested.connect(self.dialogs.add_note)
        self.conversation_list.open_conversation_requested.connect(self.open_conversation_requested)
        self.conversation_list.rename_requested.connect(self.dialogs.rename_conversation)
        self.conversation_list.delete_requested.connect(self.dialogs.delete_conversation)
        self.conversation_list.export_requested.connect(self.dialogs.export_conversation)
        self.conversation_list.pin_requested.connect(self.conversation_pin_requested)
        self.conversation_list.instructions_requested.connect(self.chat_instructions_requested)
        self.memory_panel.instructions_box.edit_requested.connect(self.settings_requested)
        self.events.conversation_changed.connect(self.conversations_model.on_conversation_changed)
        self.events.conversation_changed.connect(self._on_events_conversation_changed)
        self.events.conversation_removed.connect(self.conversations_model.on_conversation_removed)
        self.chat_view.retry_requested.connect(self.retry_requested)
        self.chat_view.edit_requested.connect(self._on_chat_view_edit_requested)
        self.chat_view.notice_requested.connect(self._on_chat_view_notice_requested)
        self.stop_action.triggered.connect(self.stop_requested)
        self.chat_view.sources_requested.connect(self.answer_sources_requested)
        self.memory_panel.edit_requested.connect(self.dialogs.edit_memory)
        self.memory_panel.pin_requested.connect(self.memory_pin_requested)
        self.memory_panel.forget_requested.connect(self.memory_forget_requested)
        self.memory_panel.details_requested.connect(self.memory_details_requested)
        self.memory_panel.resolve_requested.connect(self.memory_resolve_requested)
        self.memory_panel.search_requested.connect(self.memory_search_requested)
        self.memory_panel.suggestion_accept_requested.connect(self.suggestion_accept_requested)
        self.memory_panel.suggestion_dismiss_requested.connect(self.suggestion_dismiss_requested)
        self.undo.restore_requested.connect(self.memory_restore_requested)
        self.undo.forget_requested.connect(self.memory_forget_requested)
        # A button that hides once pressed (Undo, a suggestion's Remember or Dismiss)
        # would hand the focus to the next in the chain (New chat): back to the work.
        for signal in (
            self.undo.restore_requested,
            self.undo.forget_requested,
            self.memory_panel.suggestion_accept_requested,
            self.memory_panel.suggestion_dismiss_requested,
        ):
            signal.connect(self._on_transient_button_used)
        self.reconnect_button.clicked.connect(self.reconnect_requested)
        self.job_status.retry_requested.connect(self.jobs_retry_requested)
        self.quit_action.triggered.connect(self._on_quit_action_triggered)
        self.conversations_action.toggled.connect(self._on_panel_action_toggled)
        self.memory_action.toggled.connect(self._on_panel_action_toggled)
        for button in self.suggestion_buttons:
            button.clicked.connect(self._on_suggestion_button_clicked)

    @Slot(object)
    def _on_events_message_added(self, message: Message) -> None:
        if message.role != "user":
            return
        if message.conversation_id == self.messages_model.conversation_id:
            self.composer.clear_sent(message.content)
        self.conversation_refresh_requested.emit(message.conversation_id)

    @Slot()
    def _on_composer_text_changed(self) -> None:
        if self.composer.input.toPlainText().strip():
            self.draft_changed.emit()

    @Slot()
    def _on_transient_button_used(self, *args) -> None:
        self.focus_composer()

    @Slot(bool)
    def _on_panel_action_toggled(self, shown: bool) -> None:
        panel = CONVERSATIONS if self.sender() is self.conversations_action else MEMORY
        self._wanted_panels[panel] = shown
        if shown:
            self._last_opened = panel
        self._fit_panels()
        self.panels_changed.emit(self._wanted_panels[CONVERSATIONS], self._wanted_panels[MEMORY])

    def set_panels(self, conversations: bool, memory: bool) -> None:
        """Show or hide the side panels (as saved), without announcing a change."""
        self._wanted_panels = {CONVERSATIONS: conversations, MEMORY: memory}
        self._fit_panels()

    def panels_that_fit(self, width: int) -> dict[str, bool]:
        """Which wanted side panels show in a window ``width`` wide: those that fit, at
        their usual width, beside a chat of CHAT_MIN_WIDTH; the memory panel folds first.
        The panel the user has just opened (since the last resize) shows anyway: the
        other one folds for it."""
        minimum = {CONVERSATIONS: SIDEBAR_WIDTH, MEMORY: SIDE_PANEL_WIDTH}
        shown = dict(self._wanted_panels)
        for panel in (MEMORY, CONVERSATIONS):
            needed = CHAT_MIN_WIDTH + sum(minimum[p] for p, on in shown.items() if on)
            if needed > width and panel != self._last_opened:
                shown[panel] = False
        return shown

    def _fit_panels(self) -> None:
        """Show the side panels that fit the window's width; the toggles say what shows."""
        shown = self.panels_that_fit(self.width())
        for action, panel in ((self.conversations_action, CONVERSATIONS),
                              (self.memory_action, MEMORY)):  # fmt: skip
            action.blockSignals(True)
            action.setChecked(shown[panel])
            action.blockSignals(False)
        self.sidebar.setVisible(shown[CONVERSATIONS])
        self.side_tabs.setVisible(shown[MEMORY])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._last_opened = None  # a panel opened by hand lasts until the next resize
            self._fit_panels()

    def show_memory_tab(self) -> None:
        """The side panel, shown, on its Memory tab."""
        show_side_tab(self, 0)

    def reveal_memory(self, memory_id: int) -> None:
        """Scroll the memory panel to ``memory_id`` (when it is in the loaded pages)."""
        row = self.memories_model.row_of(memory_id)
        if row is not None:
            self.memory_panel.list.scrollTo(self.memories_model.index(row))

    @Slot(object)
    def _on_events_conversation_changed(self, conversation: Conversation) -> None:
        if conversation.id == self.messages_model.conversation_id:
            self.set_conversation_title(conversation.title or UNTITLED)

    @Slot(object)
    def _on_events_embedding_progress_changed(self, progress: dict) -> None:
        done, total = progress.get("done", 0), progress.get("total", 0)
        if total and done < total:
            self.show_status(f"Updating memory search for the new embeddings… {done} of {total}")
        elif total:
            self.show_status(f"Memory search is up to date ({total} memories).", 8000)

    @Slot()
    def _on_messages_model_changed(self, *args) -> None:
        has_messages = self.messages_model.rowCount() > 0
        self.transcript_area.setCurrentWidget(
            self.chat_view if has_messages else self.transcript_empty_state
        )

    @Slot()
    def _on_conversations_model_changed(self, *args) -> None:
        has_any = self.conversations_model.rowCount() > 0
        self.conversation_area.setCurrentWidget(
            self.conversation_list if has_any else self.conversations_empty_state
        )

    @Slot(int)
    def _on_chat_view_edit_requested(self, message_id: int) -> None:
        row = self.messages_model.row_of(message_id)
        if row is not None:
            self.composer.set_text(self.messages_model.message_at(row).content)

    @Slot(str)
    def _on_chat_view_notice_requested(self, text: str) -> None:
        self.show_status(text, 4000)

    @Slot()
    def _on_suggestion_button_clicked(self) -> None:
        self.composer.set_text(self.sender().property("suggestion"))

    @Slot()
    def _on_quit_action_triggered(self) -> None:
        self.close()

    # ------------------------------------------------------------- public state

    def set_busy(self, busy: bool) -> None:
        """An answer is streaming: show Stop instead of Send; Esc stops it."""
        self.composer.set_busy(busy)
        self.stop_action.setEnabled(busy)

    def set_theme(self, theme) -> None:
        """Colours changed (Light, Dark, or the system's scheme): repaint what paints."""
        self.chat_view.set_theme(theme)
        self.conversation_list.set_theme(theme)
        self.memory_panel.set_theme(theme)
        self.dialogs.set_theme(theme)
        self.documents_panel.set_theme(theme)

    def set_enter_sends(self, enter_sends: bool) -> None:
        self.composer.set_enter_sends(enter_sends)

    def set_prompt_budget(self, budget_tokens: int | None) -> None:
        """The model settings' prompt budget: a long message says what it means for it."""
        self.chat_view.set_prompt_budget(budget_tokens)
        self.composer.set_prompt_budget(budget_tokens)

    def set_model_name(self, name: str | None) -> None:
        self.model_badge.setText(name or NO_MODEL_TEXT)
        self.model_state.setVisible(False)

    def show_model_status(self, name: str | None, status: ModelStatus) -> None:
        """The chip (the model's name, and whether it is ready or why not) and, for a
        problem, the banner with the reason and the next step; before anything is sent."""
        self.model_badge.setText(name or NO_MODEL_TEXT)
        self.model_state.setText(("● " if status.ready else "") + status.chip_words)
        problem = status.problem_text is not None
        self.model_state.setProperty("problem", problem)
        self.model_state.style().unpolish(self.model_state)
        self.model_state.style().polish(self.model_state)
        self.model_state.setVisible(True)
        if problem or status.ready:
            self.show_model_problem(status.problem_text)

    def show_reconnecting(self) -> None:
        """The model is being (re)started: say so until :meth:`set_model_name`, and
        don't offer Try again meanwhile."""
        self.reconnect_button.setEnabled(False)
        self.model_badge.setText(CONNECTING_TEXT)
        self.model_state.setVisible(False)
        self.show_model_problem(None)
        self.show_status("Connecting to the model …")

    def show_reconnected(self) -> None:
        """The (re)start is over, however it went: Try again is offered again."""
        self.reconnect_button.setEnabled(True)

    def focus_composer(self) -> None:
        self.composer.input.setFocus()

    def set_conversation_title(self, title: str) -> None:
        self.conversation_title.setText(title)
        self.conversation_title.setToolTip(tooltip_text(title))  # a long title is cut off

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def show_model_problem(self, text: str | None) -> None:
        """Show (or, with None, hide) the banner saying why no model answers."""
        self.banner_label.setText(text or "")
        self.banner.setVisible(bool(text))

    def offer_undo(self, text: str, memory_id: int, *, forgets: bool = False) -> None:
        """Say ``text`` in the status bar with an Undo button for a while: Undo restores
        the memory (after a forget) or, with ``forgets``, forgets it (just stored)."""
        self.show_status(text, UNDO_SECONDS * 1000)
        self.undo.offer(memory_id, forgets=forgets)

    def show_conversation(
        self,
        conversation_id: int | None,
        title: str,
        messages: list[Message],
        sources_count: dict[int, int] | None = None,
        *,
        temporary: bool = False,
    ) -> None:
        self.messages_model.set_conversation(conversation_id, messages, sources_count)
        self.set_conversation_title(title)
        self.temporary_badge.setVisible(temporary)
        self.transcript_empty_state.title_label.setText(
            TEMPORARY_EMPTY_TITLE if temporary else TRANSCRIPT_EMPTY_TITLE
        )
        self.transcript_empty_state.text_label.setText(
            TEMPORARY_EMPTY_TEXT if temporary else TRANSCRIPT_EMPTY_TEXT
        )
        for button in self.suggestion_buttons:  # they are about being remembered
            button.setVisible(not temporary)
        self.conversation_list.select_conversation(conversation_id)
        self.conversation_shown.emit(conversation_id)

    def show_search_results(self, query: str, hits: list[ConversationHit]) -> None:
        """What the search for ``query`` found, if the search box still shows it."""
        dialog = self.dialogs.search_dialog
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.show_results(query, hits)

    def show_suggestions(self, suggestions: list[Suggestion]) -> None:
        """The facts waiting for the user's yes, all of them (it replaces the last list)."""
        self.memory_panel.suggestions.set_suggestions(suggestions)

    def show_failed_jobs(self, jobs: list[Job]) -> None:
        """The failed and the delayed background jobs, as read at start-up (later ones
        come as events)."""
        self.job_status.show_failed(jobs)

    def closeEvent(self, event: QCloseEvent) -> None:
        # Closing the window is how the user quits: the application hears it and
        # runs its shut-down (cancel tasks, close the database) while the loop runs.
        event.accept()
        if not self._quit_announced:
            self._quit_announced = True
            self.quit_requested.emit()
