"""How the main window's panes are laid out (built once, by :class:`MainWindow`).

Only construction lives here: the widgets become the window's attributes (declared, with
their types, on :class:`MainWindow`); the window wires what is display, the controllers
what is asked (:mod:`acai_desktop.ui.controllers`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK
from acai_desktop.ui.models.documents_model import DocumentsModel
from acai_desktop.ui.theme import app_icon
from acai_desktop.ui.untrusted import plain_label
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

if TYPE_CHECKING:
    from acai_desktop.ui.window_parts import WindowParts

TRANSCRIPT_EMPTY_TITLE = "Ask anything. I remember what matters."
TRANSCRIPT_EMPTY_TEXT = (
    "Tell me about your work, your plans and what you like. I keep what is worth "
    "keeping, and you can see, edit or forget every memory on the right."
)
CONVERSATIONS_EMPTY_TITLE = "No conversations yet"
CONVERSATIONS_EMPTY_TEXT = "Your chats will be listed here."
NO_MODEL_TEXT = "No model connected"
#: The room (px) the chat's title keeps beside the badges whatever the width, the room it
#: gets before the model's name gives way (see HeaderRow), and the model's name's least.
TITLE_KEEPS, TITLE_ROOM, MODEL_BADGE_KEEPS = 150, 260, 56
#: A header narrower than this is compact (a 640 px window with a side panel open: the
#: chat gets about 390 px); its title then keeps less, and its margins narrow.
COMPACT_HEADER_BELOW, COMPACT_TITLE_KEEPS = 560, 60
#: The panel toggles' words, and the glyphs a compact header shows instead.
CHATS_TEXT, MEMORY_TEXT = "Chats", "Memory"
CHATS_GLYPH, MEMORY_GLYPH = "☰", "◎"
HEADER_MARGINS, COMPACT_HEADER_MARGINS = (24, 14, 24, 14), (12, 14, 12, 14)
CHAT_SETTINGS_TEXT = "⚙"
CHAT_SETTINGS_TIP = "This chat's model, temperature and context budget"
TEMPORARY_BADGE = "Temporary"
TEMPORARY_BADGE_TIP = (
    "A temporary chat: nothing is remembered from it, and it is deleted when you close ACAI."
)
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
    # Plain: the header shows a conversation's title, the banner a server's error body.
    return plain_label(text, object_name)


def build_sidebar(window: WindowParts) -> QWidget:
    """The left pane: brand, new (temporary) chat, the conversation list, Memory health
    and Settings."""
    sidebar = _styled_panel("Sidebar")
    # No fixed least width: the layout's own (its widest row, "CONVERSATIONS" and
    # "+ Project") keeps every label whole in a narrow window.
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

    window.new_chat_button = QPushButton("+  New chat")
    window.new_chat_button.setObjectName("NewChatButton")
    window.new_chat_button.setToolTip("Start a new conversation (Ctrl+N)")
    layout.addWidget(window.new_chat_button)
    window.temporary_chat_button = QPushButton("Temporary chat")
    window.temporary_chat_button.setObjectName("TemporaryChatButton")
    window.temporary_chat_button.setToolTip(
        "A chat ACAI learns nothing from: no memory is written, and the chat is deleted "
        "when you close ACAI (Ctrl+Shift+N)"
    )
    layout.addWidget(window.temporary_chat_button)
    window.search_button = QPushButton("⌕  Search chats")
    window.search_button.setObjectName("SearchChatsButton")
    window.search_button.setToolTip("Search conversation titles and messages (Ctrl+K)")
    layout.addWidget(window.search_button)

    section = QHBoxLayout()
    section.addWidget(_label("CONVERSATIONS", "SectionLabel"))
    section.addStretch(1)
    window.new_project_button = QPushButton("+ Project")
    window.new_project_button.setObjectName("NewProjectButton")
    window.new_project_button.setToolTip(
        "A project groups chats, documents and memories: its chats see its memories "
        "and those of no project, never another project's"
    )
    window.new_project_button.setCursor(Qt.CursorShape.PointingHandCursor)
    section.addWidget(window.new_project_button)
    layout.addLayout(section)
    window.conversation_area = QStackedWidget()
    window.conversations_empty_state = EmptyState(
        CONVERSATIONS_EMPTY_TITLE, CONVERSATIONS_EMPTY_TEXT
    )
    window.conversation_list = ConversationList()
    window.conversation_list.setModel(window.conversations_model)
    window.conversation_area.addWidget(window.conversations_empty_state)
    window.conversation_area.addWidget(window.conversation_list)
    layout.addWidget(window.conversation_area, 1)

    window.memory_health_button = QPushButton("▥  Memory health")
    window.memory_health_button.setObjectName("MemoryHealthButton")
    window.memory_health_button.setToolTip(
        "Charts of what ACAI remembers, and evaluations on your model (Ctrl+Shift+H)"
    )
    window.settings_button = QPushButton("⚙  Settings")
    window.settings_button.setObjectName("SettingsButton")
    window.settings_button.setToolTip("Model provider, models and API key (Ctrl+,)")
    footer = QVBoxLayout()  # the two entries read as one group
    footer.setSpacing(2)
    footer.addWidget(window.memory_health_button)
    footer.addWidget(window.settings_button)
    layout.addLayout(footer)
    return sidebar


def build_chat_pane(window: WindowParts) -> QWidget:
    """The centre: header (title, badges), the model banner, the transcript (or its
    empty state with suggestions) and the composer."""
    pane = _styled_panel("ChatPane")
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)

    header = window.chat_header = HeaderRow("ChatHeader")
    header_layout = QHBoxLayout(header)
    header_layout.setContentsMargins(*HEADER_MARGINS)
    # The title keeps its room; the model's name gives way first (cut, whole in a tooltip).
    window.conversation_title = ElidedLabel("New conversation", keeps=TITLE_KEEPS)
    window.conversation_title.setObjectName("ConversationTitle")
    window.model_badge = ElidedLabel(NO_MODEL_TEXT, keeps=MODEL_BADGE_KEEPS)
    window.model_badge.setObjectName("ModelBadge")
    # Beside the model's name: ready, checking…, unreachable, no API key, wrong model name.
    window.model_state = _label("", "ModelState")
    window.model_state.setVisible(False)
    # One word, beside the title; what it means is in its tooltip.
    window.temporary_badge = _label(TEMPORARY_BADGE, "TemporaryBadge")
    window.temporary_badge.setToolTip(TEMPORARY_BADGE_TIP)
    window.temporary_badge.setVisible(False)
    # The chat on screen is local only (its mark, its project's, or the new chat's
    # choice in its ⚙); its tooltip says which (ChatHeaderController).
    window.local_only_badge = _label(LOCAL_ONLY_MARK, "LocalOnlyBadge")
    window.local_only_badge.setVisible(False)
    # Which documents this chat quotes, when not all of them (set in the Documents tab).
    window.scope_badge = _label("", "ScopeBadge")
    window.scope_badge.setToolTip("Documents this chat's answers may quote (Documents tab)")
    window.scope_badge.setVisible(False)
    # Show or hide the side panels (their actions and shortcuts: build_shortcuts).
    window.conversations_toggle = QToolButton()
    window.memory_toggle = QToolButton()
    # This chat's own model, temperature and context budget (a dialog).
    window.chat_settings_button = QToolButton()
    window.chat_settings_button.setObjectName("ChatSettingsButton")
    window.chat_settings_button.setText(CHAT_SETTINGS_TEXT)
    window.chat_settings_button.setToolTip(CHAT_SETTINGS_TIP)
    window.chat_settings_button.setAccessibleName("Chat model settings")
    window.chat_settings_button.setCursor(Qt.CursorShape.PointingHandCursor)
    for toggle, words in (
        (window.conversations_toggle, CHATS_TEXT),
        (window.memory_toggle, MEMORY_TEXT),
    ):
        toggle.setObjectName("PanelToggle")
        toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        toggle.setAccessibleName(words)  # a glyph in a compact header: read as words
    # The buttons and the state are never squeezed ("C…s"): the title and the model's
    # name give way instead, and in a compact header the name goes.
    for fixed in (
        window.conversations_toggle,
        window.memory_toggle,
        window.chat_settings_button,
        window.model_state,
    ):
        fixed.setSizePolicy(QSizePolicy.Policy.Fixed, fixed.sizePolicy().verticalPolicy())
    header_layout.addWidget(window.conversations_toggle)
    header_layout.addWidget(window.conversation_title, 1)
    header_layout.addSpacing(10)
    header_layout.addWidget(window.temporary_badge)
    header_layout.addWidget(window.local_only_badge)
    header_layout.addStretch(0)
    header_layout.addWidget(window.scope_badge)
    header_layout.addWidget(window.model_badge)
    header_layout.addWidget(window.model_state)
    header_layout.addWidget(window.chat_settings_button)
    header_layout.addWidget(window.memory_toggle)
    header.keep_title(window.conversation_title, before=window.model_badge, room=TITLE_ROOM)

    def compact(on: bool) -> None:
        header_layout.setContentsMargins(*(COMPACT_HEADER_MARGINS if on else HEADER_MARGINS))
        window.model_badge.setVisible(not on)
        window.conversation_title.keeps = COMPACT_TITLE_KEEPS if on else TITLE_KEEPS
        window.conversation_title.updateGeometry()
        # The toggles show their action's icon text: a glyph in a compact header (their
        # tooltips say what they do; the actions keep their words).
        for action, words, glyph in (
            (window.conversations_action, CHATS_TEXT, CHATS_GLYPH),
            (window.memory_action, MEMORY_TEXT, MEMORY_GLYPH),
        ):
            action.setIconText(glyph if on else words)
        window.fit_model_state()

    header.turn_compact_below(COMPACT_HEADER_BELOW, compact)
    layout.addWidget(header)

    # Shown when the model can't be reached: what happened and what to do next.
    window.banner = _styled_panel("ModelBanner")
    banner_layout = QHBoxLayout(window.banner)
    banner_layout.setContentsMargins(24, 10, 16, 10)
    window.banner_label = _label("", "BannerText")
    window.banner_label.setWordWrap(True)
    window.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    window.reconnect_button = QPushButton("Try again")
    window.reconnect_button.setObjectName("BannerButton")
    window.banner_settings_button = QPushButton("Settings…")
    window.banner_settings_button.setObjectName("BannerButton")
    banner_layout.addWidget(window.banner_label, 1)
    banner_layout.addWidget(window.banner_settings_button, 0, Qt.AlignmentFlag.AlignTop)
    banner_layout.addWidget(window.reconnect_button, 0, Qt.AlignmentFlag.AlignTop)
    window.banner.setVisible(False)
    layout.addWidget(window.banner)

    # Shown when the memory's PostgreSQL server can't be used: why, what to do, and
    # (for a server that did not answer) that ACAI keeps trying by itself.
    window.store_banner = _styled_panel("StoreBanner")
    store_layout = QHBoxLayout(window.store_banner)
    store_layout.setContentsMargins(24, 10, 16, 10)
    window.store_banner_label = _label("", "BannerText")
    window.store_banner_label.setWordWrap(True)
    window.store_banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    window.store_retry_button = QPushButton("Try now")
    window.store_retry_button.setObjectName("BannerButton")
    window.store_settings_button = QPushButton("Settings…")
    window.store_settings_button.setObjectName("BannerButton")
    store_layout.addWidget(window.store_banner_label, 1)
    store_layout.addWidget(window.store_settings_button, 0, Qt.AlignmentFlag.AlignTop)
    store_layout.addWidget(window.store_retry_button, 0, Qt.AlignmentFlag.AlignTop)
    window.store_banner.setVisible(False)
    layout.addWidget(window.store_banner)

    window.transcript_area = QStackedWidget()
    window.transcript_empty_state = EmptyState(
        TRANSCRIPT_EMPTY_TITLE, TRANSCRIPT_EMPTY_TEXT, glyph="✦", text_width=460
    )
    window.suggestion_buttons = []
    for suggestion in SUGGESTIONS:
        button = QPushButton(suggestion.strip())
        button.setObjectName("SuggestionChip")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setProperty("suggestion", suggestion)
        window.suggestion_buttons.append(button)
        window.transcript_empty_state.extra_layout.addWidget(
            button, 0, Qt.AlignmentFlag.AlignHCenter
        )
    window.chat_view = ChatView()
    window.chat_view.setModel(window.messages_model)
    window.transcript_area.addWidget(window.transcript_empty_state)
    window.transcript_area.addWidget(window.chat_view)
    layout.addWidget(window.transcript_area, 1)

    window.composer = Composer()
    # A file dropped anywhere on the chat (transcript, empty state, composer) is
    # attached to it; the filter only says which files (the attachments controller acts).
    window.chat_drop = FileDropFilter(window)
    window.chat_drop.watch(
        window.chat_view.viewport(),
        window.transcript_empty_state,
        window.composer,
        window.composer.input.viewport(),
    )
    composer_row = QHBoxLayout()
    composer_row.setContentsMargins(24, 8, 24, 20)
    composer_row.addWidget(window.composer)
    layout.addLayout(composer_row)
    return pane


def build_side_panel(window: WindowParts) -> QTabWidget:
    """The right pane: the memory panel and, beside it, the Documents tab."""
    window.memory_panel = MemoryPanel(window.memories_model)
    window.documents_model = DocumentsModel(window)
    window.documents_panel = DocumentsPanel(window.documents_model)
    tabs = QTabWidget()
    tabs.setObjectName("SidePanel")
    tabs.setDocumentMode(True)
    tabs.setMinimumWidth(window.memory_panel.minimumWidth())
    tabs.addTab(window.memory_panel, "Memory")
    tabs.addTab(window.documents_panel, "Documents")
    tabs.setTabToolTip(1, "Your files that answers can quote (Ctrl+Shift+D)")
    # Files dragged over the Memory tab: hovering "Documents" opens it, to drop there.
    tabs.tabBar().setChangeCurrentOnDrag(True)
    tabs.tabBar().setAcceptDrops(True)
    tabs.setAccessibleName("Memory and documents")
    window.side_tabs = tabs

    # Ctrl+Shift+D shows the Documents tab (and the side panel, if hidden).
    window.documents_action = QAction("Documents", window)
    window.documents_action.setShortcut(QKeySequence("Ctrl+Shift+D"))
    window.addAction(window.documents_action)
    return tabs


def show_side_tab(window: WindowParts, tab: int) -> None:
    if not window.memory_action.isChecked():
        window.memory_action.setChecked(True)
    window.side_tabs.setCurrentIndex(tab)
    window.side_tabs.currentWidget().setFocus()


def build_status_bar(window: WindowParts) -> None:
    """The status bar: messages on the left; Undo and the background jobs on the right."""
    window.undo = UndoOffer(window)
    window.undo_button = window.undo.button
    window.statusBar().addPermanentWidget(window.undo_button)
    window.job_status = JobStatus(window)
    window.jobs_label = window.job_status.running_label
    window.failed_jobs_label = window.job_status.failed_label
    window.retry_jobs_button = window.job_status.retry_button
    for widget in (window.jobs_label, window.failed_jobs_label, window.retry_jobs_button):
        window.statusBar().addPermanentWidget(widget)
    window.statusBar().showMessage("Ready")


def build_shortcuts(window: WindowParts) -> None:
    """The window's keyboard actions (Quit, New chat, Temporary chat, Search, Memory
    health, Settings, Stop, and showing or hiding the side panels)."""
    window.quit_action = QAction("&Quit", window)
    window.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    window.new_chat_action = QAction("&New chat", window)
    window.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
    window.temporary_chat_action = QAction("&Temporary chat", window)
    window.temporary_chat_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
    window.search_action = QAction("&Search conversations…", window)
    window.search_action.setShortcut(QKeySequence("Ctrl+K"))
    window.memory_health_action = QAction("Memory &health…", window)
    window.memory_health_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
    window.settings_action = QAction("&Settings…", window)
    # Ctrl+, is the usual place for preferences (Cmd+, on macOS, where Qt maps it).
    window.settings_action.setShortcut(QKeySequence("Ctrl+,"))
    # Esc stops the answer being written; only while one is, so Esc keeps its
    # usual meaning (close a menu, leave a message's text) the rest of the time.
    window.stop_action = QAction("&Stop the answer", window)
    window.stop_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
    window.stop_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    window.stop_action.setEnabled(False)
    # The side panels can be hidden, for a narrow window; the choice is remembered.
    # "Chats", as New chat and Search chats say: short enough for a 640 px header.
    window.conversations_action = QAction(CHATS_TEXT, window)
    window.conversations_action.setShortcut(QKeySequence("Ctrl+B"))
    window.conversations_action.setToolTip("Show or hide the chats (Ctrl+B)")
    window.memory_action = QAction(MEMORY_TEXT, window)
    window.memory_action.setShortcut(QKeySequence("Ctrl+Shift+M"))
    window.memory_action.setToolTip("Show or hide the memory panel (Ctrl+Shift+M)")
    for action, toggle in (
        (window.conversations_action, window.conversations_toggle),
        (window.memory_action, window.memory_toggle),
    ):
        action.setCheckable(True)
        action.setChecked(True)
        toggle.setDefaultAction(action)
    window.addActions(
        [
            window.quit_action,
            window.new_chat_action,
            window.temporary_chat_action,
            window.search_action,
            window.memory_health_action,
            window.settings_action,
            window.stop_action,
            window.conversations_action,
            window.memory_action,
        ]
    )
