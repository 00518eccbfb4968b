"""Small windows the session opens with ``open()`` (never ``exec()``: a nested Qt loop
would stall the asyncio loop): edit a memory, add a note, a memory's details, an
answer's sources.

Details and sources open at once with "Loading…" and are filled when the session has
read what they show.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records import (
    AnswerSource,
    MemoryEvent,
    MemoryItem,
    Message,
    RecalledMessage,
)
from acai_desktop.ui.untrusted import plain_label

ACTOR_LABELS = {
    "user": "You",
    "critical_info_processor": "Fact extraction",
    "summary_processor": "Summariser",
    "system": "ACAI",
}
REASON_LABELS = {
    "lexical": "shares words",
    "semantic": "similar meaning",
    "pinned": "pinned",
    "recent": "recent",
    "summary": "summary of this chat",
    "this_conversation": "this conversation",
    "author": "said by who you named",
    "on_date": "on the date you named",
}
# The link a recalled message's "from the chat ..." line opens (conversation/message).
MESSAGE_LINK_SCHEME = "acai-message"
STYLE = """
<style>
 .head { margin: 14px 0 4px 0; font-size: 8.5pt; font-weight: 600; color: #8a869c; }
 .muted { color: #8a869c; }
 .card { margin: 0 0 8px 0; }
 .warn { color: #a12a3a; }
</style>
"""


def _when(at: str | None) -> str:
    """A stored date as HTML-safe text (an imported file's dates end up here too)."""
    return html.escape((at or "")[:16].replace("T", " "))


def error_label() -> QLabel:
    """The hidden line a dialog shows a refusal in (red, from the theme). Plain: a
    refusal may quote the user's text or a server's answer."""
    label = plain_label("", "DialogError")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def save_cancel_buttons(save_text: str) -> tuple[QDialogButtonBox, QPushButton]:
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
    )
    save = buttons.button(QDialogButtonBox.StandardButton.Save)
    save.setObjectName("PrimaryButton")
    save.setText(save_text)
    return buttons, save


class _Dialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(18, 16, 18, 14)
        self.layout_.setSpacing(10)

    def _save_on_ctrl_enter(self, buttons: QDialogButtonBox) -> None:
        """Ctrl+Enter saves from anywhere in the dialog, the text box included."""
        self.save_shortcuts = []
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shortcut = QShortcut(QKeySequence(Qt.Modifier.CTRL | key), self)
            shortcut.activated.connect(buttons.accepted)
            self.save_shortcuts.append(shortcut)


class MemoryEditDialog(_Dialog):
    save_requested = Signal(int, str)  # memory id, new text

    def __init__(self, item: MemoryItem, parent: QWidget | None = None) -> None:
        super().__init__("Edit memory", parent)
        self.memory_id = item.id
        self.resize(460, 220)
        note = QLabel("A memory you edit is kept as you wrote it: ACAI never changes it.")
        note.setObjectName("DialogNote")
        note.setWordWrap(True)
        self.editor = QPlainTextEdit(item.content)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.editor, 1)
        self.layout_.addWidget(self.buttons)
        self.editor.setAccessibleName("Memory text")
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setToolTip("Save (Ctrl+Enter)")
        self._save_on_ctrl_enter(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    def _on_buttons_accepted(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text:
            self.editor.setFocus()
            return
        self.save_requested.emit(self.memory_id, text)
        self.accept()


class NoteDialog(_Dialog):
    """Write a note for ACAI to keep. It stays open until the session says the note
    is stored (:meth:`saved`) or why not (:meth:`show_error`), so the text is never lost."""

    save_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Add a note", parent)
        self.resize(460, 240)
        note = QLabel(
            "Something ACAI should always know, in your words: it is kept as you wrote it."
        )
        note.setObjectName("DialogNote")
        note.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("For example: I'm allergic to peanuts.")
        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Remember")
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.editor, 1)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self.editor.setAccessibleName("Note")
        self.save_button.setToolTip("Remember (Ctrl+Enter)")
        self._save_on_ctrl_enter(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.editor.textChanged.connect(self._on_editor_text_changed)

    def _on_buttons_accepted(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text:
            self.show_error("Write the note first.")
            self.editor.setFocus()
            return
        self.save_button.setEnabled(False)
        self.save_requested.emit(text)

    def _on_editor_text_changed(self) -> None:
        self.save_button.setEnabled(True)

    def show_error(self, text: str) -> None:
        self.save_button.setEnabled(True)
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def saved(self) -> None:
        self.accept()


class RenameConversationDialog(_Dialog):
    rename_requested = Signal(int, str)  # conversation id, new title

    def __init__(self, conversation_id: int, title: str, parent: QWidget | None = None) -> None:
        # The core's title rule, imported when used: the store module (sqlite_utils)
        # is not needed to paint the window.
        from acai_desktop.core.conversation_titles import MAX_TITLE_CHARS

        super().__init__("Rename conversation", parent)
        self.conversation_id = conversation_id
        self.resize(420, 140)
        self.editor = QLineEdit(title)
        self.editor.setMaxLength(MAX_TITLE_CHARS)
        self.editor.selectAll()
        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Rename")
        self.layout_.addWidget(self.editor)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.editor.returnPressed.connect(self._on_buttons_accepted)

    def _on_buttons_accepted(self) -> None:
        from acai_desktop.core.conversation_titles import clean_title

        try:
            title = clean_title(self.editor.text())  # the core's rule, checked here first
        except InvalidInputError as error:
            self.error_label.setText(str(error))
            self.error_label.setVisible(True)
            self.editor.setFocus()
            return
        self.rename_requested.emit(self.conversation_id, title)
        self.accept()


DELETE_CONVERSATION_TEXT = (
    "Delete this conversation? Its messages are removed; "
    "what ACAI learned from it stays in your memories."
)


class DeleteConversationDialog(_Dialog):
    delete_confirmed = Signal(int)  # conversation id

    def __init__(self, conversation_id: int, title: str, parent: QWidget | None = None) -> None:
        super().__init__("Delete conversation", parent)
        self.conversation_id = conversation_id
        self.resize(420, 150)
        self.name_label = name = plain_label(title)
        font = name.font()
        font.setBold(True)
        name.setFont(font)
        name.setWordWrap(True)
        question = QLabel(DELETE_CONVERSATION_TEXT)
        question.setObjectName("DialogNote")
        question.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.delete_button = self.buttons.addButton(
            "Delete", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.delete_button.setObjectName("DangerButton")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.layout_.addWidget(name)
        self.layout_.addWidget(question)
        self.layout_.addWidget(self.buttons)
        self.delete_button.clicked.connect(self._on_delete_button_clicked)
        self.buttons.rejected.connect(self.reject)

    def _on_delete_button_clicked(self) -> None:
        self.delete_confirmed.emit(self.conversation_id)
        self.accept()


class _BrowserDialog(_Dialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(title, parent)
        self.resize(540, 480)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml("<p class='muted'>Loading…</p>")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.layout_.addWidget(self.browser, 1)
        self.layout_.addWidget(buttons)

    def show_error(self, text: str) -> None:
        self.browser.setHtml(f"{STYLE}<p class='warn'>{html.escape(text)}</p>")


class MemoryDetailsDialog(_BrowserDialog):
    def __init__(self, memory_id: int, parent: QWidget | None = None) -> None:
        super().__init__("Memory details", parent)
        self.memory_id = memory_id

    def set_details(
        self,
        item: MemoryItem,
        history: list[MemoryEvent],
        sources: list[Message],
        used_in_answers: int,
        *,
        conflicting: MemoryItem | None = None,
    ) -> None:
        """``conflicting``: for a conflict, the memory it contradicts, shown beside it."""
        e = html.escape
        parts = [STYLE, f"<p style='font-size:11pt'>{e(item.content)}</p>"]
        facts = [
            item.kind.value.capitalize(),
            item.category or "no category",
            f"confidence {round(item.confidence * 100)}%",
            f"importance {item.importance:.2f}",
            f"status {item.status.value}",
            "pinned" if item.pinned else "",
            "edited by you" if item.user_edited else "",
        ]
        parts.append(f"<p class='muted'>{e(' · '.join(f for f in facts if f))}</p>")
        if item.status.value == "conflict":
            # meta comes from the processors, or as it is from an imported file.
            other = item.meta.get("conflicts_with")
            parts.append(
                "<p class='warn'>This contradicts "
                + (f"memory #{e(str(other))}" if other else "a memory you pinned or edited")
                + ". In the memory panel, <b>Use new</b> replaces it with this one; "
                "<b>Keep old</b> forgets this one.</p>"
            )
            if conflicting is not None:
                state = ", ".join(
                    label
                    for label, on in (
                        ("pinned", conflicting.pinned),
                        ("edited by you", conflicting.user_edited),
                        (conflicting.status.value, conflicting.status.value != "active"),
                    )
                    if on
                )
                parts.append("<p class='head'>CONFLICTS WITH</p>")
                parts.append(
                    f"<p class='card'>{e(conflicting.content)}<br><span class='muted'>"
                    f"memory #{conflicting.id}{' · ' + e(state) if state else ''}</span></p>"
                )
        parts.append(
            f"<p class='muted'>Used in {used_in_answers} answer"
            f"{'' if used_in_answers == 1 else 's'}.</p>"
        )
        parts.append("<p class='head'>CAME FROM</p>")
        if sources:
            for message in sources:
                who = "You" if message.role == "user" else "ACAI"
                parts.append(
                    f"<p class='card'><b>{who}</b> <span class='muted'>{_when(message.created_at)}"
                    f"</span><br>{e(message.content)}</p>"
                )
        elif item.origin == "user":
            parts.append("<p class='muted'>Written by you, not taken from a message.</p>")
        else:
            # Imported from another profile, whose messages are not here.
            parts.append("<p class='muted'>No message of this profile is linked to it.</p>")
        parts.append("<p class='head'>HISTORY</p>")
        for event in history:
            action = event.action.replace("_", " ").capitalize()  # conflict_accepted
            line = f"<b>{e(action)}</b> by {ACTOR_LABELS.get(event.actor, '?')}"
            before = (event.before or {}).get("content")
            after = (event.after or {}).get("content")
            if before and after and before != after:
                line += f"<br><span class='muted'>“{e(before)}” → “{e(after)}”</span>"
            parts.append(f"<p class='card'>{line} <span class='muted'>{_when(event.at)}</span></p>")
        self.browser.setHtml("".join(parts))


def message_link(message: RecalledMessage) -> str:
    return f"{MESSAGE_LINK_SCHEME}:{message.conversation_id}/{message.id}"


def parse_message_link(url: QUrl) -> tuple[int, int] | None:
    """(conversation id, message id) of a link made by :func:`message_link`."""
    if url.scheme() != MESSAGE_LINK_SCHEME:
        return None
    conversation, _, message = url.path().partition("/")
    if not (conversation.isdigit() and message.isdigit()):
        return None
    return int(conversation), int(message)


class ProvenanceDialog(_BrowserDialog):
    #: The user clicked a recalled message: open its conversation at it.
    message_open_requested = Signal(int, int)  # conversation id, message id

    def __init__(self, answer_id: int, parent: QWidget | None = None) -> None:
        super().__init__("Memories used for this answer", parent)
        self.answer_id = answer_id
        # Links are ours (a recalled message's chat); never follow them as pages.
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)

    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        target = parse_message_link(url)
        if target is not None:
            self.message_open_requested.emit(*target)
            self.accept()

    def set_sources(
        self, sources: list[tuple[AnswerSource, MemoryItem | RecalledMessage | None]]
    ) -> None:
        """Each source with what it names now: the memory, the recalled message (with
        its chat), or None when that is gone."""
        e = html.escape
        parts = [STYLE]
        if not sources:
            parts.append("<p class='muted'>No memory was put into this answer's prompt.</p>")
        for source, item in sources:
            reasons = ", ".join(REASON_LABELS.get(r, r) for r in source.reasons) or "—"
            if source.recalled_message_id is not None:
                parts.append(_recalled_card(source, item, reasons))
                continue
            text = e(item.content) if item else "<i>(this memory no longer exists)</i>"
            state = ""
            if item is not None and item.status.value not in ("active", "temporary"):
                state = f" <span class='warn'>({e(item.status.value)} since)</span>"
            parts.append(
                f"<p class='card'><b>#{source.rank}</b> {text}{state}<br>"
                f"<span class='muted'>score {source.score:.2f} · {e(reasons)}"
                f" · memory #{source.memory_id}</span></p>"
            )
        self.browser.setHtml("".join(parts))


def _recalled_card(source: AnswerSource, message: RecalledMessage | None, reasons: str) -> str:
    """A recalled message: who said what, and "from the chat *Title*, date" as the link
    that opens it there."""
    e = html.escape
    figures = f"score {source.score:.2f} · {e(reasons)}"
    if message is None:
        return (
            f"<p class='card'><b>#{source.rank}</b> <i>(this message no longer exists)</i>"
            f"<br><span class='muted'>{figures}</span></p>"
        )
    title = e(message.conversation_title or "Untitled chat")
    where = f"from the chat <i>{title}</i>, {e(_when(message.created_at)[:10])}"
    return (
        f"<p class='card'><b>#{source.rank}</b> <b>{e(message.speaker)}:</b> "
        f"{e(message.content)}<br><a href='{message_link(message)}'>{where}</a>"
        f" <span class='muted'>· {figures}</span></p>"
    )
