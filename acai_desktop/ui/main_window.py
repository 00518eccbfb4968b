"""The main window: conversations on the left, the chat in the centre, memory and documents
on the right (two tabs).

The window is a layout: it builds its panes (:mod:`acai_desktop.ui.window_panes`), declares
every widget, model and action as a typed attribute, and shows state through intent-level
methods (``show_conversation``, ``set_busy``, ``show_model_status``, ``offer_undo`` …).
It wires only what is display: the core's news (through its :class:`EventBridge`) into
its Qt models and widgets, and one widget's change into another's (an empty list shows
its empty state, the side panels fold to fit). It has no signal that re-emits a widget's:
what a click asks for is decided by the feature controllers
(:mod:`acai_desktop.ui.controllers`), which connect the widgets themselves
(docs/architecture.md, "The window and its controllers").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QSplitter,
    QWidget,
)

from acai_desktop.core.records.conversations import Conversation, Message
from acai_desktop.core.records.jobs import Job
from acai_desktop.ui.event_bridge import EventBridge
from acai_desktop.ui.focus_return import FocusReturn
from acai_desktop.ui.models.conversations_model import (
    UNTITLED,
    ConversationsModel,
)
from acai_desktop.ui.models.memories_model import MemoriesModel
from acai_desktop.ui.models.messages_model import MessagesModel
from acai_desktop.ui.side_panels import SIDE_PANEL_WIDTH, SIDEBAR_WIDTH, SidePanels
from acai_desktop.ui.tab_order import next_stop, tab_chain, window_tab_areas
from acai_desktop.ui.theme import app_icon
from acai_desktop.ui.untrusted import tooltip_text
from acai_desktop.ui.widgets.undo_offer import UNDO_SECONDS
from acai_desktop.ui.window_dialogs import WindowDialogs
from acai_desktop.ui.window_panes import (
    NO_MODEL_TEXT,
    TRANSCRIPT_EMPTY_TEXT,
    TRANSCRIPT_EMPTY_TITLE,
    build_chat_pane,
    build_shortcuts,
    build_side_panel,
    build_sidebar,
    build_status_bar,
    show_side_tab,
)
from acai_desktop.ui.window_parts import WindowParts

if TYPE_CHECKING:  # loaded with the assistant: not needed to paint
    from acai_desktop.core.models.model_status import ModelStatus
    from acai_desktop.core.turns.citations import Citation

WINDOW_TITLE = "ACAI Desktop"
DEFAULT_SIZE = QSize(1280, 800)
TEMPORARY_EMPTY_TITLE = "A temporary chat"
TEMPORARY_EMPTY_TEXT = (
    "ACAI still uses what it knows about you, but learns nothing from this chat: "
    "no memory is written from it, and it is deleted when you close ACAI."
)
CONNECTING_TEXT = "Connecting…"


class MainWindow(WindowParts):
    #: The user closed the window (or pressed Ctrl+Q): the app controller shuts down.
    quit_requested = Signal()
    #: The side panels the user wants changed: conversations shown, memory panel shown.
    panels_changed = Signal(bool, bool)
    #: Opens the dialogs (beside the parts of :class:`WindowParts`: the dialogs take
    #: the window as those parts).
    dialogs: WindowDialogs

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        self.setWindowIcon(app_icon())
        # Half a laptop screen; below the three panes' own widths, hide a side panel.
        self.setMinimumSize(640, 480)
        self.resize(DEFAULT_SIZE)
        self._quit_announced = False
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
        self.side_panels = SidePanels(
            self.sidebar, self.side_tabs, self.conversations_action, self.memory_action
        )

        build_status_bar(self)
        self._connect_signals()
        # A dialog gives the focus back to the button that opened it.
        self.focus_return = FocusReturn(self, self.composer.input)
        self.focus_return.watch(
            self.chat_settings_button,
            self.settings_button,
            self.banner_settings_button,
            self.store_settings_button,
            self.search_button,
            self.memory_health_button,
            self.new_project_button,
            self.memory_panel.add_note_button,
            self.memory_panel.instructions_box.edit_button,
            self.memory_panel.actions_bar.edit_button,
            self.memory_panel.actions_bar.details_button,
        )
        # The user's work is the message they are about to write: the cursor waits there.
        self.composer.input.setFocus()

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab and Shift+Tab anywhere in the window follow :func:`window_tab_areas`."""
        target = next_stop(tab_chain(window_tab_areas(self)), QApplication.focusWidget(), next)
        if target is None:
            return super().focusNextPrevChild(next)
        reason = Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason
        target.setFocus(reason)
        return True

    # ------------------------------------------------------------------ wiring

    def _connect_signals(self) -> None:
        """What is display only; requests are the controllers' (they connect to widgets)."""
        # Core news, through the bridge, into the Qt models and the window.
        events = self.events
        events.message_added.connect(self.messages_model.on_message_added)
        events.message_added.connect(self._on_events_message_added)
        events.message_updated.connect(self.messages_model.on_message_updated)
        events.answer_finished.connect(self.messages_model.on_answer_finished)
        events.transcript_changed.connect(self.messages_model.on_transcript_changed)
        events.memory_added.connect(self.memories_model.on_memory_added)
        # A memory learned during a search may be on its topic: search again, once quiet.
        events.memory_added.connect(self.memory_panel.search_again_soon)
        events.memory_changed.connect(self.memories_model.on_memory_changed)
        events.memory_removed.connect(self.memories_model.on_memory_removed)
        # Thousands written by another process: the list is read again, once.
        events.memories_changed_in_bulk.connect(self._on_events_memories_changed_in_bulk)
        events.job_status_changed.connect(self.job_status.on_job_status_changed)
        events.embedding_progress_changed.connect(self._on_events_embedding_progress_changed)
        events.conversation_created.connect(self.conversations_model.on_conversation_changed)
        events.conversation_changed.connect(self.conversations_model.on_conversation_changed)
        events.conversation_changed.connect(self._on_events_conversation_changed)
        events.conversation_removed.connect(self.conversations_model.on_conversation_removed)
        events.projects_changed.connect(self.conversations_model.set_projects)
        events.projects_changed.connect(self.memory_panel.set_projects)
        events.projects_changed.connect(self.documents_panel.set_projects)
        documents = self.documents_model
        events.document_added.connect(documents.on_document_added)
        events.document_changed.connect(documents.on_document_changed)
        events.document_removed.connect(documents.on_document_removed)
        events.indexing_progress_changed.connect(documents.on_indexing_progress)
        events.folder_progress_changed.connect(self.documents_panel.on_folder_progress)
        for signal in (self.messages_model.rowsInserted, self.messages_model.modelReset):
            signal.connect(self._on_messages_model_changed)
        for signal in (
            self.conversations_model.rowsInserted,
            self.conversations_model.rowsRemoved,
            self.conversations_model.modelReset,
            self.conversations_model.dataChanged,  # a chat marked local only, or not
        ):
            signal.connect(self._on_conversations_model_changed)

        # One widget's change shown in another.
        self.chat_view.edit_requested.connect(self._on_chat_view_edit_requested)
        self.chat_view.notice_requested.connect(self._on_chat_view_notice_requested)
        # A button that hides once pressed (Undo, a suggestion's Remember or Dismiss)
        # would hand the focus to the next in the chain (New chat): back to the work.
        for signal in (
            self.undo.restore_requested,
            self.undo.forget_requested,
            self.memory_panel.suggestion_accept_requested,
            self.memory_panel.suggestion_dismiss_requested,
        ):
            signal.connect(self._on_transient_button_used)
        self.quit_action.triggered.connect(self._on_quit_action_triggered)
        self.conversations_action.toggled.connect(self._on_panel_action_toggled)
        self.memory_action.toggled.connect(self._on_panel_action_toggled)
        self.documents_action.triggered.connect(self._on_documents_action_triggered)
        for button in self.suggestion_buttons:
            button.clicked.connect(self._on_suggestion_button_clicked)

    @Slot(object)
    def _on_events_message_added(self, message: Message) -> None:
        if (
            message.role == "user"
            and message.conversation_id == self.messages_model.conversation_id
        ):
            self.composer.clear_sent(message.content)

    @Slot(int)
    def _on_events_memories_changed_in_bulk(self, _count: int) -> None:
        self.memories_model.reload()

    @Slot()
    def _on_transient_button_used(self, *args) -> None:
        self.focus_composer()

    @Slot(bool)
    def _on_panel_action_toggled(self, shown: bool) -> None:
        self.side_panels.toggled(self.sender(), shown, self.width())
        self.panels_changed.emit(*self.side_panels.wanted())

    def set_panels(self, conversations: bool, memory: bool) -> None:
        """Show or hide the side panels (as saved), without announcing a change."""
        self.side_panels.want(conversations, memory, self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.side_panels.resized(self.width())

    @Slot()
    def _on_documents_action_triggered(self) -> None:
        show_side_tab(self, 1)

    def show_scope_summary(self, text: str) -> None:
        """Which documents this chat quotes, when not all of them (empty: hide it)."""
        self.scope_badge.setText(text)
        self.scope_badge.setVisible(bool(text))

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
        # What was learned in a local-only chat is local only too: its cards say so.
        self.memories_model.set_local_only_chats(self.conversations_model.local_only_chat_ids())

    @Slot(int)
    def _on_chat_view_edit_requested(self, message_id: int) -> None:
        row = self.messages_model.row_of(message_id)
        if row is not None:
            self.composer.begin_edit(message_id, self.messages_model.message_at(row).content)

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
        self.model_state_text = ("● " if status.ready else "") + status.chip_words
        self.fit_model_state()
        # The name is hidden in a compact header: the state still names the model.
        self.model_state.setToolTip(f"{name or NO_MODEL_TEXT}: {status.chip_words}")
        problem = status.problem_text is not None
        self.model_state.setProperty("problem", problem)
        self.model_state.style().unpolish(self.model_state)
        self.model_state.style().polish(self.model_state)
        self.model_state.setVisible(True)
        if problem or status.ready:
            self.show_model_problem(status.problem_text)

    def show_chat_settings(self, own: bool, tip: str) -> None:
        """Whether the chat on screen has model settings of its own (the header's ⚙
        stands out then), and what they are (its tooltip)."""
        button = self.chat_settings_button
        button.setToolTip(tip)
        if button.property("own") != own:
            button.setProperty("own", own)
            button.style().unpolish(button)
            button.style().polish(button)

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

    def show_store_problem(self, text: str | None, *, retry_text: str = "Try now") -> None:
        """Show (or, with None, hide) the banner saying why the memory's server can't be
        used; ``retry_text`` names what its button does (try again, update the schema)."""
        self.store_banner_label.setText(text or "")
        self.store_retry_button.setText(retry_text)
        self.store_banner.setVisible(bool(text))

    def offer_undo(
        self, text: str, memory_id: int | Sequence[int], *, forgets: bool = False
    ) -> None:
        """Say ``text`` in the status bar with an Undo button for a while: Undo restores
        the memory or memories (after a forget) or, with ``forgets``, forgets it (just
        stored)."""
        self.show_status(text, UNDO_SECONDS * 1000)
        self.undo.offer(memory_id, forgets=forgets)

    def show_conversation(
        self,
        conversation_id: int | None,
        title: str,
        messages: list[Message],
        sources_count: dict[int, int] | None = None,
        citations: dict[int, tuple[Citation, ...]] | None = None,
        *,
        temporary: bool = False,
    ) -> None:
        if conversation_id != self.messages_model.conversation_id:
            self.composer.cancel_edit()  # an edit belongs to the chat it was begun in
        self.messages_model.set_conversation(conversation_id, messages, sources_count, citations)
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
