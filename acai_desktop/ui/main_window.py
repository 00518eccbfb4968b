"""The main window: conversations on the left, the chat in the centre, memory on the right.

The window only shows state and asks for things through its signals; the
application (``acai_desktop.ui.app``) decides what a request does. Every signal of
the window is wired in :meth:`MainWindow._connect_signals`.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.ui.theme import app_icon
from acai_desktop.ui.widgets.composer import Composer
from acai_desktop.ui.widgets.empty_state import EmptyState

WINDOW_TITLE = "ACAI Desktop"
DEFAULT_SIZE = QSize(1280, 800)
TRANSCRIPT_EMPTY_TITLE = "Ask anything. I remember what matters."
TRANSCRIPT_EMPTY_TEXT = (
    "Tell me about your work, your plans and what you like. I keep what is worth "
    "keeping, and you can see, edit or forget every memory on the right."
)
MEMORY_EMPTY_TITLE = "Memories will appear here"
MEMORY_EMPTY_TEXT = (
    "Facts you share, summaries of past chats and your own notes. Pin, edit or forget any of them."
)
CONVERSATIONS_EMPTY_TITLE = "No conversations yet"
CONVERSATIONS_EMPTY_TEXT = "Your chats will be listed here."
NO_MODEL_TEXT = "No model connected"
# Starting points offered on an empty chat; a click puts the text in the composer.
SUGGESTIONS = (
    "Remember that I prefer short, direct answers.",
    "I'm working on a project about ",
    "What do you remember about me?",
)


def _styled_panel(object_name: str) -> QWidget:
    panel = QWidget()
    panel.setObjectName(object_name)
    # Plain QWidgets paint stylesheet backgrounds and borders only with this set.
    panel.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    return panel


def _label(text: str, object_name: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName(object_name)
    return label


class MainWindow(QMainWindow):
    send_requested = Signal(str)
    stop_requested = Signal()
    new_conversation_requested = Signal()
    memory_search_requested = Signal(str)
    quit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        self.setWindowIcon(app_icon())
        self.setMinimumSize(960, 600)
        self.resize(DEFAULT_SIZE)
        self._quit_announced = False

        self.sidebar = self._build_sidebar()
        self.chat_pane = self._build_chat_pane()
        self.memory_panel = self._build_memory_panel()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setHandleWidth(1)
        self.splitter.setChildrenCollapsible(False)
        for pane in (self.sidebar, self.chat_pane, self.memory_panel):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([250, DEFAULT_SIZE.width() - 250 - 310, 310])
        self.setCentralWidget(self.splitter)

        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.new_chat_action = QAction("&New chat", self)
        self.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
        self.addActions([self.quit_action, self.new_chat_action])

        self.statusBar().showMessage("Ready")
        self._connect_signals()

    # ----------------------------------------------------------------- building

    def _build_sidebar(self) -> QWidget:
        sidebar = _styled_panel("Sidebar")
        sidebar.setMinimumWidth(200)
        layout = QVBoxLayout(sidebar)
        layout.setContentsMargins(16, 18, 16, 12)
        layout.setSpacing(12)

        brand = QHBoxLayout()
        brand.setSpacing(10)
        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(QSize(30, 30)))
        brand.addWidget(logo)
        brand.addWidget(_label("ACAI", "BrandTitle"))
        brand.addStretch(1)
        layout.addLayout(brand)

        self.new_chat_button = QPushButton("+  New chat")
        self.new_chat_button.setObjectName("NewChatButton")
        self.new_chat_button.setToolTip("Start a new conversation (Ctrl+N)")
        layout.addWidget(self.new_chat_button)

        layout.addWidget(_label("CONVERSATIONS", "SectionLabel"))
        # Page 0 is the empty state; the conversation list view joins as page 1.
        self.conversation_area = QStackedWidget()
        self.conversation_area.addWidget(
            EmptyState(CONVERSATIONS_EMPTY_TITLE, CONVERSATIONS_EMPTY_TEXT)
        )
        layout.addWidget(self.conversation_area, 1)
        return sidebar

    def _build_chat_pane(self) -> QWidget:
        pane = _styled_panel("ChatPane")
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)

        header = _styled_panel("ChatHeader")
        header_layout = QHBoxLayout(header)
        header_layout.setContentsMargins(24, 14, 24, 14)
        self.conversation_title = _label("New conversation", "ConversationTitle")
        self.model_badge = _label(NO_MODEL_TEXT, "ModelBadge")
        header_layout.addWidget(self.conversation_title)
        header_layout.addStretch(1)
        header_layout.addWidget(self.model_badge)
        layout.addWidget(header)

        # Page 0 is the empty state; the streaming chat view joins as page 1.
        self.transcript_area = QStackedWidget()
        self.transcript_empty_state = EmptyState(
            TRANSCRIPT_EMPTY_TITLE, TRANSCRIPT_EMPTY_TEXT, glyph="✦", text_width=460
        )
        self.suggestion_buttons: list[QPushButton] = []
        for suggestion in SUGGESTIONS:
            button = QPushButton(suggestion.strip())
            button.setObjectName("SuggestionChip")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setProperty("suggestion", suggestion)
            self.suggestion_buttons.append(button)
            self.transcript_empty_state.extra_layout.addWidget(
                button, 0, Qt.AlignmentFlag.AlignHCenter
            )
        self.transcript_area.addWidget(self.transcript_empty_state)
        layout.addWidget(self.transcript_area, 1)

        self.composer = Composer()
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(24, 8, 24, 20)
        composer_row.addWidget(self.composer)
        layout.addLayout(composer_row)
        return pane

    def _build_memory_panel(self) -> QWidget:
        panel = _styled_panel("MemoryPanel")
        panel.setMinimumWidth(240)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(16, 18, 16, 12)
        layout.setSpacing(12)
        layout.addWidget(_label("Memory", "PanelTitle"))
        self.memory_search = QLineEdit()
        self.memory_search.setPlaceholderText("Search memories")
        self.memory_search.setClearButtonEnabled(True)
        layout.addWidget(self.memory_search)
        layout.addWidget(_label("FACTS, SUMMARIES AND NOTES", "SectionLabel"))
        # Page 0 is the empty state; the memory list view joins as page 1.
        self.memory_area = QStackedWidget()
        self.memory_area.addWidget(
            EmptyState(MEMORY_EMPTY_TITLE, MEMORY_EMPTY_TEXT, glyph="◎", text_width=220)
        )
        layout.addWidget(self.memory_area, 1)
        return panel

    # ------------------------------------------------------------------ wiring

    def _connect_signals(self) -> None:
        self.composer.send_requested.connect(self._on_composer_send_requested)
        self.composer.stop_requested.connect(self._on_composer_stop_requested)
        self.new_chat_button.clicked.connect(self._on_new_chat_button_clicked)
        self.new_chat_action.triggered.connect(self._on_new_chat_button_clicked)
        self.memory_search.textChanged.connect(self._on_memory_search_text_changed)
        self.quit_action.triggered.connect(self._on_quit_action_triggered)
        for button in self.suggestion_buttons:
            button.clicked.connect(self._on_suggestion_button_clicked)

    def _on_composer_send_requested(self, text: str) -> None:
        self.send_requested.emit(text)

    def _on_composer_stop_requested(self) -> None:
        self.stop_requested.emit()

    def _on_new_chat_button_clicked(self) -> None:
        self.new_conversation_requested.emit()

    def _on_memory_search_text_changed(self, text: str) -> None:
        self.memory_search_requested.emit(text)

    def _on_suggestion_button_clicked(self) -> None:
        self.composer.set_text(self.sender().property("suggestion"))

    def _on_quit_action_triggered(self) -> None:
        self.close()

    # ------------------------------------------------------------- public state

    def set_busy(self, busy: bool) -> None:
        """An answer is streaming: show Stop instead of Send."""
        self.composer.set_busy(busy)

    def set_model_name(self, name: str | None) -> None:
        self.model_badge.setText(name or NO_MODEL_TEXT)

    def set_conversation_title(self, title: str) -> None:
        self.conversation_title.setText(title)

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def closeEvent(self, event: QCloseEvent) -> None:
        # Closing the window is how the user quits: the application hears it and
        # runs its shut-down (cancel tasks, close the database) while the loop runs.
        event.accept()
        if not self._quit_announced:
            self._quit_announced = True
            self.quit_requested.emit()
