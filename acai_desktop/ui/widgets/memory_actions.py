"""The bars under the memory panel's list, for the selected memory: its actions (edit,
pin or unpin, forget, details, mark or unmark local only; and for a project's memory
*Use in every chat*, for a promoted one *Keep to its project*), and, for a conflict,
the user's decision (*Use new*, *Keep old*). Each bar shows what fits the memory it is
given; the panel connects their buttons to its requests."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from acai_desktop.ui.local_only_text import LOCAL_ONLY_TIP, MARK_TEXT, UNMARK_TEXT
from acai_desktop.ui.models.memories_model import MemoriesModel
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.flow_layout import FlowLayout

CONFLICT_TEXT = "This contradicts a memory you pinned or edited. Which one is right?"
PROMOTE_TEXT = "Use in every chat"
DEMOTE_TEXT = "Keep to its project"


class MemoryActionsBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryActions")
        self.edit_button = QPushButton("Edit")
        self.pin_button = QPushButton("Pin")
        self.forget_button = QPushButton("Forget")
        self.forget_button.setObjectName("DangerButton")
        self.details_button = QPushButton("Details")
        # A project's memory: let every chat see it; a promoted one: back to its project.
        self.scope_button = QPushButton(PROMOTE_TEXT)
        self.local_only_button = QPushButton(MARK_TEXT)
        self.edit_button.setToolTip("Change the text (a memory you edit is never changed by ACAI)")
        self.pin_button.setToolTip("Pinned memories are always in context")
        self.forget_button.setToolTip("Remove from memory (Delete; you can undo)")
        self.details_button.setToolTip("History and where it came from")
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(6)
        actions = QHBoxLayout()
        actions.setSpacing(6)
        for button in (self.edit_button, self.pin_button, self.forget_button, self.details_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            actions.addWidget(button)
        rows.addLayout(actions)
        # On a line of their own: a fifth button would squeeze the others' words; and
        # on two when the panel is narrow.
        more = QWidget()
        flow = FlowLayout(more)
        for button in (self.local_only_button, self.scope_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            flow.addWidget(button)
        rows.addWidget(more)

    def show_for(
        self,
        *,
        pinned: bool,
        conflict: bool,
        project: str | None,
        promoted_from: str | None,
        local_only: bool = False,
    ) -> None:
        """The actions for the selected memory: ``project`` names the project it is kept
        to (it may be promoted); ``promoted_from`` the one it was promoted from, while
        that project exists (it may go back to it); ``local_only``: the user marked it."""
        self.pin_button.setText("Unpin" if pinned else "Pin")
        self.pin_button.setEnabled(pinned or not conflict)  # a conflict is decided first
        self.local_only_button.setText(UNMARK_TEXT if local_only else MARK_TEXT)
        self.local_only_button.setToolTip(
            "Let it reach models that run elsewhere again" if local_only else LOCAL_ONLY_TIP
        )
        if project is not None:
            text = PROMOTE_TEXT
            tip = f"Only the chats of {project} see it now; let every chat see it"
        elif promoted_from is not None:
            text, tip = DEMOTE_TEXT, f"Every chat sees it now; keep it to {promoted_from} again"
        else:
            self.scope_button.setVisible(False)
            return
        self.scope_button.setText(text)
        self.scope_button.setToolTip(tip)
        self.scope_button.setVisible(True)


class ConflictBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConflictActions")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.use_new_button = QPushButton("Use new")
        self.use_new_button.setObjectName("PrimaryButton")
        self.use_new_button.setToolTip(
            "Keep this one: it replaces the memory it contradicts (kept in the history) "
            "and takes over its pin"
        )
        self.keep_old_button = QPushButton("Keep old")
        self.keep_old_button.setToolTip("Keep the memory you had: forget this one (you can undo)")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        self.label = make_plain(QLabel(CONFLICT_TEXT))  # quotes a memory
        self.label.setObjectName("ConflictText")
        self.label.setWordWrap(True)
        layout.addWidget(self.label)
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        for button in (self.use_new_button, self.keep_old_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

    def show_conflict(self, model: MemoriesModel, conflict_id: int) -> None:
        """Name the memory the conflict contradicts when the panel shows it."""
        row = model.row_of(conflict_id)
        other_id = model.item_at(row).meta.get("conflicts_with") if row is not None else None
        other_row = model.row_of(other_id) if other_id is not None else None
        if other_row is None:
            self.label.setText(CONFLICT_TEXT)
            return
        other = " ".join(model.item_at(other_row).content.split())
        if len(other) > 80:
            other = other[:79] + "…"
        self.label.setText(
            f"This contradicts “{other}”, which you pinned or edited. Which one is right?"
        )
