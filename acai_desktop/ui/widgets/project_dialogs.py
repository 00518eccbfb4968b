"""A project's dialogs: its name, default model and whether it is local only (new
project, or an existing one's *Rename project…*), and the question asked before
deleting it, which says what happens to its chats, memories and documents either way."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLineEdit, QMessageBox, QWidget

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.projects.names import MAX_PROJECT_NAME_CHARS, clean_project_name
from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.dialogs import BaseDialog, error_label, save_cancel_buttons

MODEL_PLACEHOLDER = "The chat model from Settings"
LOCAL_ONLY_BOX_TEXT = "Keep its chats, memories and documents on this computer"


class ProjectDialog(BaseDialog):
    """A new project's name (``project_id`` None), or an existing one's name, model and
    local-only mark."""

    #: project id (None: a new project), name, default model ("" : the one in Settings),
    #: local only
    save_requested = Signal(object, str, str, bool)

    def __init__(
        self,
        project_id: int | None,
        name: str = "",
        model: str | None = None,
        parent: QWidget | None = None,
        *,
        local_only: bool = False,
    ) -> None:
        super().__init__("New project" if project_id is None else "Project", parent)
        self.project_id = project_id
        self.resize(440, 200)
        self.name_editor = QLineEdit(name)
        self.name_editor.setMaxLength(MAX_PROJECT_NAME_CHARS)
        self.name_editor.setPlaceholderText("A name, such as Garden or Taxes")
        self.name_editor.setAccessibleName("Project name")
        self.name_editor.selectAll()
        self.model_editor = QLineEdit(model or "")
        self.model_editor.setPlaceholderText(MODEL_PLACEHOLDER)
        self.model_editor.setAccessibleName("Default model")
        self.model_editor.setToolTip(
            "The chat model this project's chats use, unless a chat sets its own"
        )
        self.local_only_box = QCheckBox(LOCAL_ONLY_BOX_TEXT)
        self.local_only_box.setChecked(local_only)
        self.local_only_box.setToolTip(
            "What the project holds is kept on this computer: never sent to a model that "
            "runs elsewhere"
        )
        form = QFormLayout()
        form.addRow("Name", self.name_editor)
        form.addRow("Default model", self.model_editor)
        form.addRow(LOCAL_ONLY_MARK, self.local_only_box)
        self.error_label = error_label()
        text = "Create" if project_id is None else "Save"
        self.buttons, self.save_button = save_cancel_buttons(text)
        self.layout_.addLayout(form)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.name_editor.returnPressed.connect(self._on_buttons_accepted)

    def _on_buttons_accepted(self) -> None:
        try:
            name = clean_project_name(self.name_editor.text())  # the core's rule, first here
        except InvalidInputError as error:
            self.error_label.setText(str(error))
            self.error_label.setVisible(True)
            self.name_editor.setFocus()
            return
        self.save_requested.emit(
            self.project_id,
            name,
            self.model_editor.text().strip(),
            self.local_only_box.isChecked(),
        )
        self.accept()


KEEP_CONTENTS_TEXT = "Keep its chats"
DELETE_CONTENTS_TEXT = "Delete its chats too"


def deletion_question(name: str, chats: int, memories: int, documents: int) -> str:
    """What deleting a project does, in numbers, both ways."""

    def count(number: int, one: str, many: str) -> str:
        return f"{number} {one if number == 1 else many}"

    held = ", ".join(
        (
            count(chats, "chat", "chats"),
            count(memories, "memory", "memories"),
            count(documents, "document", "documents"),
        )
    )
    return (
        f"Delete the project “{name}”? It holds {held}.\n\n"
        f"{KEEP_CONTENTS_TEXT}: they all stay, outside any project, and every chat sees "
        "them from now on.\n\n"
        f"{DELETE_CONTENTS_TEXT}: its chats are deleted, its documents removed from ACAI "
        "(the files stay on disk) and its memories forgotten (you can restore one from "
        "its history)."
    )


def ask_delete_project(
    parent: QWidget,
    name: str,
    contents: tuple[int, int, int],
    on_keep: Callable[[], None],
    on_delete: Callable[[], None],
) -> QMessageBox:
    """The question before deleting a project: Cancel (the default), keep what it holds
    (outside any project), or delete that too. Shown with open(); plain text (it quotes
    the project's name); deletes itself when closed."""
    box = make_plain(
        QMessageBox(
            QMessageBox.Icon.Question,
            "Delete project",
            deletion_question(name, *contents),
            QMessageBox.StandardButton.Cancel,
            parent,
        )
    )
    keep = box.addButton(KEEP_CONTENTS_TEXT, QMessageBox.ButtonRole.AcceptRole)
    delete = box.addButton(DELETE_CONTENTS_TEXT, QMessageBox.ButtonRole.DestructiveRole)
    delete.setObjectName("DangerButton")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)

    def chosen(button) -> None:
        if button is keep:
            on_keep()
        elif button is delete:
            on_delete()

    box.buttonClicked.connect(chosen)
    box.open()
    return box
