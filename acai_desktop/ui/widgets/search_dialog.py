"""The search box over conversations (Ctrl+K): a line edit over a list of results.

Typing waits for a pause (``DEBOUNCE_MS``) before it asks for a search
(:attr:`SearchDialog.search_requested`); the session answers with
:meth:`SearchDialog.show_results`, which drops any answer to a query that is no longer
the one typed, so a slow older search never replaces a newer one. Down and Up move
through the results without leaving the line edit, Enter opens the chosen one (the
first if none is chosen; before the pause, it searches at once), Esc closes. Opened
with ``open()``, never ``exec()``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QLineEdit,
    QListView,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.records.conversations import ConversationHit
from acai_desktop.ui.models.search_results_model import SearchResultsModel, SearchRoles
from acai_desktop.ui.untrusted import PlainToolTipDelegate, plain_label

DEBOUNCE_MS = 200
PLACEHOLDER = "Search conversations and messages"
HINT_TEXT = "Type to search your chats' titles and messages."
SEARCHING_TEXT = "Searching…"
NOTHING_FOUND_TEXT = "Nothing found for “{query}”."


class SearchDialog(QDialog):
    #: The query typed, once typing pauses ("" never asked).
    search_requested = Signal(str)
    #: A result was chosen: conversation id, message id (None: the conversation).
    result_chosen = Signal(int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Search")
        self.setObjectName("SearchDialog")
        self.resize(560, 420)
        self.model = SearchResultsModel(self)
        #: The query whose results are shown (or awaited).
        self.query = ""

        self.input = QLineEdit()
        self.input.setPlaceholderText(PLACEHOLDER)
        self.input.setAccessibleName("Search conversations")
        self.input.setClearButtonEnabled(True)
        self.input.installEventFilter(self)

        self.results = QListView()
        self.results.setModel(self.model)
        self.results.setAccessibleName("Search results")
        self.results.setItemDelegate(PlainToolTipDelegate(self.results))
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setUniformItemSizes(True)
        self.results.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setSpacing(2)

        # Plain: the message says what the user typed.
        self.status_label = plain_label(HINT_TEXT, "EmptyStateText")
        self.status_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_label.setWordWrap(True)
        self.area = QStackedWidget()
        self.area.addWidget(self.status_label)
        self.area.addWidget(self.results)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addWidget(self.input)
        layout.addWidget(self.area, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounce_timeout)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.results.activated.connect(self._on_results_activated)
        self.results.clicked.connect(self._on_results_activated)

    # ------------------------------------------------------------------ state

    def show_results(self, query: str, hits: list[ConversationHit]) -> bool:
        """Show ``hits`` if they answer the query typed now; False (and nothing
        changes) for an older query's."""
        if query != self.query:
            return False
        self.model.set_hits(hits)
        if hits:
            self.area.setCurrentWidget(self.results)
            self.results.setCurrentIndex(self.model.index(0))
        else:
            self.status_label.setText(NOTHING_FOUND_TEXT.format(query=query.strip()))
            self.area.setCurrentWidget(self.status_label)
        return True

    def choose(self, row: int | None = None) -> bool:
        """Open the result at ``row`` (the current one, else the first) and close."""
        if row is None:
            current = self.results.currentIndex()
            row = current.row() if current.isValid() else 0
        if not 0 <= row < self.model.rowCount():
            return False
        index = self.model.index(row)
        self.result_chosen.emit(
            index.data(SearchRoles.CONVERSATION_ID), index.data(SearchRoles.MESSAGE_ID)
        )
        self.accept()
        return True

    # ---------------------------------------------------------------- reactions

    @Slot(str)
    def _on_input_text_changed(self, text: str) -> None:
        self.query = text
        if not text.strip():
            self._debounce.stop()
            self.model.set_hits([])
            self.status_label.setText(HINT_TEXT)
            self.area.setCurrentWidget(self.status_label)
            return
        self._debounce.start()  # restarts: only a pause in typing searches

    @Slot()
    def _on_debounce_timeout(self) -> None:
        if self.query.strip():
            if not self.model.rowCount():
                self.status_label.setText(SEARCHING_TEXT)
            self.search_requested.emit(self.query)

    @Slot(QModelIndex)
    def _on_results_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.choose(index.row())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self._move(1 if key == Qt.Key.Key_Down else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self._debounce.isActive():
                    # The results shown answer an older query: search now instead of
                    # opening one of them; Enter again opens.
                    self._debounce.stop()
                    self._on_debounce_timeout()
                else:
                    self.choose()
                return True  # never the dialog's default button
        return super().eventFilter(watched, event)

    def _move(self, step: int) -> None:
        count = self.model.rowCount()
        if not count:
            return
        current = self.results.currentIndex()
        row = current.row() + step if current.isValid() else 0
        self.results.setCurrentIndex(self.model.index(max(0, min(count - 1, row))))
