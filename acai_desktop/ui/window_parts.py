"""What the main window holds: every widget, model and action as a typed attribute,
declared once here and built by :class:`~acai_desktop.ui.main_window.MainWindow` and the
pane builders (:mod:`acai_desktop.ui.window_panes`, :mod:`acai_desktop.ui.window_dialogs`),
which take the window as these parts (so they need not import the window that calls
them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QWidget,
)

if TYPE_CHECKING:
    from acai_desktop.ui.event_bridge import EventBridge
    from acai_desktop.ui.focus_return import FocusReturn
    from acai_desktop.ui.models.conversations_model import ConversationsModel
    from acai_desktop.ui.models.documents_model import DocumentsModel
    from acai_desktop.ui.models.memories_model import MemoriesModel
    from acai_desktop.ui.models.messages_model import MessagesModel
    from acai_desktop.ui.widgets.chat_view import ChatView
    from acai_desktop.ui.widgets.composer import Composer
    from acai_desktop.ui.widgets.conversation_list import ConversationList
    from acai_desktop.ui.widgets.documents_panel import DocumentsPanel
    from acai_desktop.ui.widgets.elided_label import ElidedLabel
    from acai_desktop.ui.widgets.empty_state import EmptyState
    from acai_desktop.ui.widgets.file_drop import FileDropFilter
    from acai_desktop.ui.widgets.header_row import HeaderRow
    from acai_desktop.ui.widgets.job_status import JobStatus
    from acai_desktop.ui.widgets.memory_panel import MemoryPanel
    from acai_desktop.ui.widgets.undo_offer import UndoOffer


class WindowParts(QMainWindow):
    events: EventBridge
    messages_model: MessagesModel
    memories_model: MemoriesModel
    conversations_model: ConversationsModel
    documents_model: DocumentsModel
    # The left pane.
    sidebar: QWidget
    new_chat_button: QPushButton
    new_project_button: QPushButton
    temporary_chat_button: QPushButton
    search_button: QPushButton
    conversation_area: QStackedWidget
    conversations_empty_state: EmptyState
    conversation_list: ConversationList
    memory_health_button: QPushButton
    settings_button: QPushButton
    # The chat.
    chat_pane: QWidget
    conversation_title: ElidedLabel
    model_badge: ElidedLabel
    model_state: QLabel
    chat_header: HeaderRow
    temporary_badge: QLabel
    local_only_badge: QLabel
    scope_badge: QLabel
    chat_settings_button: QToolButton
    conversations_toggle: QToolButton
    memory_toggle: QToolButton
    banner: QWidget
    banner_label: QLabel
    reconnect_button: QPushButton
    banner_settings_button: QPushButton
    store_banner: QWidget
    store_banner_label: QLabel
    store_retry_button: QPushButton
    store_settings_button: QPushButton
    transcript_area: QStackedWidget
    transcript_empty_state: EmptyState
    suggestion_buttons: list[QPushButton]
    chat_view: ChatView
    composer: Composer
    #: Files dropped onto the chat (attached to it).
    chat_drop: FileDropFilter
    # The right pane.
    side_tabs: QTabWidget
    memory_panel: MemoryPanel
    memory_search: QLineEdit
    documents_panel: DocumentsPanel
    # The status bar.
    undo: UndoOffer
    undo_button: QPushButton
    job_status: JobStatus
    jobs_label: QLabel
    failed_jobs_label: QLabel
    retry_jobs_button: QPushButton
    # Keyboard actions (window_panes.build_shortcuts).
    quit_action: QAction
    new_chat_action: QAction
    temporary_chat_action: QAction
    search_action: QAction
    memory_health_action: QAction
    settings_action: QAction
    stop_action: QAction
    conversations_action: QAction
    memory_action: QAction
    documents_action: QAction

    #: Where the keyboard goes back to when a pane the user left closes.
    focus_return: FocusReturn
    #: The model state's words (the header shows its dot alone when compact).
    model_state_text: str = ""

    def fit_model_state(self) -> None:
        """The state's words, or in a compact header its dot alone (coloured as a
        problem or not; the words in its tooltip, the problem in the banner below)."""
        compact = self.chat_header.compact
        self.model_state.setText("●" if compact else self.model_state_text)
