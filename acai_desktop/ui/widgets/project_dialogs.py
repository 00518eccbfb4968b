"""A project's dialogs: its name and default model (new project, or an existing one's
*Name and model…*), and the question asked before deleting it, which says what happens
to its chats, memories and documents."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLineEdit, QMessageBox, QWidget

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.project_names import MAX_PROJECT_NAME_CHARS, clean_project_name
from acai_desktop.ui.widgets.dialogs import BaseDialog, ask_before, error_label, save_cancel_buttons

MODEL_PLACEHOLDER = "The chat model from Settings"


class ProjectDialog(BaseDialog):
    """A new project's name (``project_id`` None), or an existing one's name and model."""

    #: project id (None: a new project), name, default model ("" : the one in Settings)
    save_requested = Signal(object, str, str)

    def __init__(
        self,
        project_id: int | None,
        name: str = "",
        model: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("New project" if project_id is None else "Project", parent)
        self.project_id = project_id
        self.resize(440, 170)
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
        form = QFormLayout()
        form.addRow("Name", self.name_editor)
        form.addRow("Default model", self.model_editor)
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
        self.save_requested.emit(self.project_id, name, self.model_editor.text().strip())
        self.accept()


def deletion_question(name: str, chats: int, memories: int, documents: int) -> str:
    """What deleting a project does, in numbers."""

    def count(number: int, word: str) -> str:
        return f"{number} {word}{'' if number == 1 else 's'}"

    return (
        f"Delete the project “{name}”?\n\n"
        f"Its {count(chats, 'chat')} stay, outside any project, with every message.\n"
        f"Its {count(memories, 'memory').replace('memorys', 'memories')} are forgotten, "
        "not spread to every chat (you can restore one from its history).\n"
        f"Its {count(documents, 'document')} stay, for every chat."
    )


def ask_delete_project(
    parent: QWidget, name: str, chats: int, memories: int, documents: int, on_yes
) -> QMessageBox:
    return ask_before(
        parent,
        "Delete project",
        deletion_question(name, chats, memories, documents),
        "Delete project",
        on_yes,
    )
