"""One chat's model settings, opened from the chat's header (⚙): its own model,
temperature and context budget, each either the chat's own or the one from Settings.
The chat's own budget is automatic (it follows the chat's model's context window) or a
number; the note says what Settings' budget and automatic come to for the chat's model.

The model list is what the server listed when it was probed (any name may still be
typed: a server that lists nothing takes names it was never asked about); a name the
listing lacks is said at once, in the words the header's chip uses ("wrong model name").

Under them, whether the chat is local only (issue 42, item 4): a new chat's choice, so
its first message never reaches a model that runs elsewhere, or an existing chat's mark.
A chat of a local-only project is local only by its project: the box shows it, ticked
and disabled. Only Save applies anything; what unmarking means is the controller's to ask.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.conversations.chat_settings import (
    AUTOMATIC,
    MAX_TEMPERATURE,
    MIN_TEMPERATURE,
    ChatSettings,
    ProfileChatDefaults,
    clean_chat_settings,
)
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.presets import has_model
from acai_desktop.core.models.prompt_budget import PromptBudget
from acai_desktop.ui.local_only_text import BECAUSE_OF_PROJECT, LOCAL_ONLY_TIP
from acai_desktop.ui.routing_labels import CHAT_MODEL_ALWAYS, POLICY_LABELS, routing_label
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.budget_field import BudgetField
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

TITLE = "Model settings for this chat"
OWN_MODEL, OWN_TEMPERATURE, OWN_BUDGET = "Model", "Temperature", "Context budget"
OWN_ROUTING = "Each answer from"
SERVER_DEFAULT = "the server's default"
DEFAULT_TEMPERATURE = 0.7  # where the spin box starts when the profile sends none
UNKNOWN_NAME = "The server did not list a model named {name!r}: answers will fail."
LOCAL_ONLY_BOX_TEXT = (
    "Local only: keep this chat on this computer (never sent to a model that runs elsewhere)"
)
LOCAL_ONLY_BY_PROJECT_TIP = (
    f"{BECAUSE_OF_PROJECT} Its chats are kept on this computer; unmark the project (its "
    "menu in the sidebar) to change that."
)


def from_settings_text(
    profile: ProfileChatDefaults, from_settings: PromptBudget | None = None
) -> str:
    """``from_settings``: the budget Settings gives this chat's model (None: not worked
    out; the profile's choice is said as it stands)."""
    temperature = SERVER_DEFAULT if profile.temperature is None else f"{profile.temperature:g}"
    if from_settings is not None:
        budget = from_settings.describe()
    elif profile.context_budget_tokens is None:
        budget = "automatic"
    else:
        budget = f"{profile.context_budget_tokens:,} tokens"
    return (
        f"Unticked, a setting comes from Settings: model {profile.model or 'none'}; "
        f"temperature: {temperature}; context budget: {budget}; each answer from: "
        f"{routing_label(profile.routing).lower()}. A model of this chat's own answers "
        "every turn."
    )


class ChatSettingsDialog(QDialog):
    #: The chat's own settings as chosen (a ChatSettings; all unset: Settings' own), and
    #: whether the chat is to be local only by its own mark (None: the box could not say,
    #: its project decides).
    save_requested = Signal(object, object)

    def __init__(
        self,
        profile: ProfileChatDefaults,
        own: ChatSettings,
        listed: Sequence[str] = (),
        parent: QWidget | None = None,
        *,
        from_settings: PromptBudget | None = None,
        automatic: PromptBudget | None = None,
        local_only: str | None = None,
    ) -> None:
        """``listed``: the server's model names, where names matter (empty: it listed
        none, or answers to any name): offered, and a name not among them is flagged.
        ``from_settings`` and ``automatic``: what the budget from Settings and an
        automatic one come to for the chat's model now (None: not known).
        ``local_only``: why the chat is local only now: "own" (its mark, or the new
        chat's choice), "project" (its project is), None (it is not)."""
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setObjectName("ChatSettingsDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.models = list(listed)
        self.own_model = QCheckBox(OWN_MODEL)
        self.model = ignore_wheel_unless_focused(QComboBox())
        self.model.setEditable(True)  # a server that lists nothing takes any name
        offered = self.models or ([profile.model] if profile.model else [])
        self.model.addItems(offered)
        self.model.setAccessibleName(OWN_MODEL)
        self.own_temperature = QCheckBox(OWN_TEMPERATURE)
        self.temperature = ignore_wheel_unless_focused(QDoubleSpinBox())
        self.temperature.setRange(MIN_TEMPERATURE, MAX_TEMPERATURE)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setAccessibleName(OWN_TEMPERATURE)
        self.own_budget = QCheckBox(OWN_BUDGET)
        self.budget = BudgetField(OWN_BUDGET)
        self.budget.set_automatic(automatic)
        self.own_routing = QCheckBox(OWN_ROUTING)
        self.routing = ignore_wheel_unless_focused(QComboBox())
        self.routing.setAccessibleName(OWN_ROUTING)
        for value, label in (("off", CHAT_MODEL_ALWAYS), *POLICY_LABELS.items()):
            self.routing.addItem(label, value)
        self.note = plain_label(from_settings_text(profile, from_settings), "DialogNote")
        self.note.setWordWrap(True)
        self.local_only_box = QCheckBox(LOCAL_ONLY_BOX_TEXT)
        self.local_only_box.setChecked(local_only is not None)
        self.local_only_box.setEnabled(local_only != "project")
        self.local_only_box.setToolTip(
            LOCAL_ONLY_BY_PROJECT_TIP if local_only == "project" else f"{LOCAL_ONLY_TIP}."
        )
        self.warning_label = plain_label("", "DialogError")
        self.warning_label.setWordWrap(True)
        self.warning_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)

        grid = QGridLayout()
        for row, (check, field) in enumerate(
            (
                (self.own_model, self.model),
                (self.own_temperature, self.temperature),
                (self.own_budget, self.budget),
                (self.own_routing, self.routing),
            )
        ):
            grid.addWidget(check, row, 0)
            grid.addWidget(field, row, 1)
            check.toggled.connect(field.setEnabled)
        grid.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        # The budget's tick sits level with its choice, not centred on the choice and
        # the note under it: at the top of its cell, as tall as the choice's row (a
        # check box centres its box and text in its height).
        grid.setAlignment(self.own_budget, Qt.AlignmentFlag.AlignTop)
        self.own_budget.setMinimumHeight(self.budget.choice_height())
        layout.addWidget(self.note)
        layout.addWidget(self.local_only_box)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.buttons)

        self.model.setCurrentText(own.model or profile.model or "")
        shown = own.routing or profile.routing or "off"
        self.routing.setCurrentIndex(max(0, self.routing.findData(shown)))
        self.temperature.setValue(
            own.temperature
            if own.temperature is not None
            else profile.temperature
            if profile.temperature is not None
            else DEFAULT_TEMPERATURE
        )
        own_budget = own.context_budget_tokens
        self.budget.set_value(
            (None if own_budget == AUTOMATIC else own_budget)
            if own_budget is not None
            else profile.context_budget_tokens
        )
        for check, value, field in (
            (self.own_model, own.model, self.model),
            (self.own_temperature, own.temperature, self.temperature),
            (self.own_budget, own.context_budget_tokens, self.budget),
            (self.own_routing, own.routing, self.routing),
        ):
            check.setChecked(value is not None)
            field.setEnabled(value is not None)
        self.model.currentTextChanged.connect(self._check_name)
        self.own_model.toggled.connect(self._check_name)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self._check_name()

    def _check_name(self, *args) -> None:
        """Say at once when the server's listing lacks the name typed."""
        name = self.model.currentText().strip()
        unknown = self.own_model.isChecked() and self.models and not has_model(self.models, name)
        self.warning_label.setText(UNKNOWN_NAME.format(name=name) if unknown else "")
        self.warning_label.setVisible(bool(unknown))

    def chosen(self) -> ChatSettings:
        """The choices as settings; InvalidInputError for one that can't be used."""
        return clean_chat_settings(
            self.model.currentText() if self.own_model.isChecked() else None,
            self.temperature.value() if self.own_temperature.isChecked() else None,
            self._own_budget() if self.own_budget.isChecked() else None,
            self.routing.currentData() if self.own_routing.isChecked() else None,
        )

    def _own_budget(self) -> int:
        value = self.budget.value()
        return AUTOMATIC if value is None else value

    def _on_buttons_accepted(self) -> None:
        try:
            settings = self.chosen()
        except InvalidInputError as error:
            self.warning_label.setText(str(error))
            self.warning_label.show()
            return
        self.save_requested.emit(settings, self.chosen_local_only())
        self.accept()

    def chosen_local_only(self) -> bool | None:
        """Whether the chat is to carry its own local-only mark; None while its project
        keeps it local only (the box can't change that, and the chat's own mark stays)."""
        box = self.local_only_box
        return box.isChecked() if box.isEnabled() else None
