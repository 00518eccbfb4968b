"""Settings: which model provider ACAI talks to, its address, a model per role, the
embedding source, the context budget and the API key; and the appearance (Light, Dark or
the system's colours; whether Enter sends).

The dialog only edits and checks values; it asks through its signals and the session
does the work: ``detect_requested`` (look for running servers; the answer comes back
through :meth:`SettingsDialog.show_detection`) and ``save_requested`` (write the
settings and the key, then reconnect; a failure comes back through
:meth:`SettingsDialog.show_error`). The key is handed over once and never kept in a
setting or a log. Opened with ``open()``, never ``exec()``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.presets import ModelRole, ProviderName
from acai_desktop.core.models.prompt_budget import PromptBudget
from acai_desktop.core.models.settings import ModelSettings, refuse_credentials_in
from acai_desktop.core.profile.store_choice import ServerAddress
from acai_desktop.ui.preferences import UiPreferences
from acai_desktop.ui.routing_labels import CHAT_MODEL_ALWAYS, POLICY_LABELS
from acai_desktop.ui.theme import THEME_CHOICES
from acai_desktop.ui.widgets.budget_field import BudgetField
from acai_desktop.ui.widgets.dialogs import error_label, save_cancel_buttons
from acai_desktop.ui.widgets.instructions_widgets import InstructionsFields
from acai_desktop.ui.widgets.models_list import ModelsList
from acai_desktop.ui.widgets.provider_fields import ProviderFields
from acai_desktop.ui.widgets.settings_fields import (
    EMBEDDING_SOURCES,
    AskBeforeRememberingBox,
    cost_ceiling_box,
    cost_ceiling_of,
    hint,
    validation_text,
)
from acai_desktop.ui.widgets.store_fields import StoreFields
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

#: Settings the form doesn't show: kept as they were when the provider stays the same
#: (edited in the settings file).
UNSHOWN_SETTINGS = {
    "structured_mode",
    "read_timeout_seconds",
    "first_token_timeout_seconds",
    "answer_timeout_seconds",
    "reply_timeout_seconds",
}

if TYPE_CHECKING:  # detection needs the model client (openai): loaded when it runs
    from acai_desktop.core.models.detection import DetectionReport

#: The tallest the dialog opens: it fits a 1366×768 screen with a panel and a title
#: bar; the form scrolls inside it (heading and buttons stay in view).
MAX_HEIGHT = 680
#: Kept free of the screen's available height (the window frame, some air).
SCREEN_MARGIN = 60


class SettingsDialog(QDialog):
    # One form, one label column: the provider's rows and their rules are
    # ProviderFields'; the dialog ties the provider to what else depends on it (the
    # embeddings, the ask-before-remembering default, the automatic budget).
    #: (ModelSettings, api key typed or "" to keep the stored one)
    save_requested = Signal(object, str)
    #: provider and the address typed for it ("" for none): also probed besides the presets
    detect_requested = Signal(str, str)
    #: UiPreferences: announced on Save, before save_requested
    preferences_save_requested = Signal(object)
    #: CustomInstructions: announced on Save when they changed, before save_requested
    instructions_save_requested = Signal(object)
    #: (ServerAddress or None for this computer, password typed or ""): announced on
    #: Save when the store changed, before save_requested
    store_save_requested = Signal(object, str)

    def __init__(
        self,
        settings: ModelSettings,
        *,
        providers_with_key: set[str] | frozenset[str] = frozenset(),
        key_warning: str | None = None,
        preferences: UiPreferences | None = None,
        instructions: CustomInstructions | None = None,
        store: ServerAddress | None = None,
        store_password_saved: bool = False,
        automatic_budget: PromptBudget | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``automatic_budget``: what an automatic context budget comes to now, for the
        model the settings name (None: not known, no model running)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.store_fields = StoreFields(store, password_saved=store_password_saved)
        #: The profile's custom instructions as opened (None: unknown, not editable).
        self.original_instructions = instructions
        self.instructions_fields = InstructionsFields()
        self.instructions_fields.set_instructions(instructions or CustomInstructions())
        self.instructions_fields.setEnabled(instructions is not None)
        self.setObjectName("SettingsDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.resize(560, 0)
        self.original = settings
        self.automatic_budget = automatic_budget
        self.provider_fields = ProviderFields(
            settings, providers_with_key=providers_with_key, key_warning=key_warning, parent=self
        )

        self.embedding_box = ignore_wheel_unless_focused(QComboBox())
        for value, label in EMBEDDING_SOURCES.items():
            self.embedding_box.addItem(label, value)
        self.embedding_note = hint("A change re-computes memory vectors in the background.")
        self.budget = BudgetField()

        self.ask_box = AskBeforeRememberingBox(settings.ask_before_remembering)

        preferences = preferences or UiPreferences()
        self.original_preferences = preferences
        self.theme_box = ignore_wheel_unless_focused(QComboBox())
        self.theme_box.setAccessibleName("Theme")
        for value, label in THEME_CHOICES.items():
            self.theme_box.addItem(label, value)
        self.theme_box.setCurrentIndex(max(0, self.theme_box.findData(preferences.theme)))
        self.enter_sends_box = QCheckBox("Enter sends the message (Shift+Enter: new line)")
        self.enter_sends_box.setToolTip("Off: Enter starts a new line and Ctrl+Enter sends")
        self.enter_sends_box.setChecked(preferences.enter_sends)

        self.models_list = ModelsList()
        self.routing_box = ignore_wheel_unless_focused(QComboBox())
        self.routing_box.setAccessibleName("Each answer from")
        self.routing_box.setToolTip(
            "Which model answers each message: always your chat model, or the one of "
            "your models that fits the message (code, an image, a long file…) by this "
            "rule. A chat with a model of its own always keeps it."
        )
        for value, label in ((None, CHAT_MODEL_ALWAYS), *POLICY_LABELS.items()):
            self.routing_box.addItem(label, value)
        self.routing_box.setCurrentIndex(max(0, self.routing_box.findData(settings.routing)))
        self.cost_ceiling = cost_ceiling_box(settings.max_answer_cost)

        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Save and connect")

        form = QFormLayout()
        form.setHorizontalSpacing(14)
        form.setVerticalSpacing(8)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.provider_fields.add_rows(form)
        models_title = QLabel("YOUR MODELS")
        models_title.setObjectName("SectionLabel")
        form.addRow(models_title)
        form.addRow("Each answer from", self.routing_box)
        form.addRow("At most", self.cost_ceiling)
        form.addRow(self.models_list)
        memory_title = QLabel("MEMORY")
        memory_title.setObjectName("SectionLabel")
        form.addRow(memory_title)
        form.addRow("Embeddings", self.embedding_box)
        form.addRow("", self.embedding_note)
        form.addRow("Context budget", self.budget)
        form.addRow("", self.ask_box)
        form.addRow("Store", self.store_fields)
        appearance_title = QLabel("APPEARANCE")
        appearance_title.setObjectName("SectionLabel")
        form.addRow(appearance_title)
        form.addRow("Theme", self.theme_box)
        form.addRow("", self.enter_sends_box)
        instructions_title = QLabel("CUSTOM INSTRUCTIONS")
        instructions_title.setObjectName("SectionLabel")
        self.instructions_title = instructions_title
        form.addRow(instructions_title)
        form.addRow(self.instructions_fields)
        self.form = form
        self.embedding_box.setAccessibleName("Embeddings")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 16)
        layout.setSpacing(12)
        heading = QLabel("Model provider")
        heading.setObjectName("PanelTitle")
        layout.addWidget(heading)
        layout.addWidget(
            hint("Where ACAI's model runs. Saving reconnects; your chats and memories stay.")
        )
        layout.addSpacing(4)
        # The form scrolls when the screen is short; the heading and the buttons don't.
        self.form_widget = QWidget()
        self.form_widget.setObjectName("SettingsForm")
        form_layout = QVBoxLayout(self.form_widget)
        form_layout.setContentsMargins(0, 0, 8, 0)
        form_layout.addLayout(form)
        form_layout.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("SettingsScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.form_widget)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self._load(settings)
        self._connect_signals()
        self.fit_height()

    def show_instructions(self) -> None:
        """Open at the custom instructions (the memory panel's Edit… asked for them):
        scrolled to them, the cursor in the first field. After the dialog's layout, so
        the scroll area knows where they are."""
        QTimer.singleShot(0, self._scroll_to_instructions)

    def _scroll_to_instructions(self) -> None:
        self.scroll.ensureWidgetVisible(self.instructions_fields.about, 0, 0)
        self.scroll.ensureWidgetVisible(self.instructions_title, 0, 8)
        self.instructions_fields.respond.setFocus(Qt.FocusReason.OtherFocusReason)

    def _connect_signals(self) -> None:
        fields = self.provider_fields
        fields.provider_box.currentIndexChanged.connect(self._on_provider_box_changed)
        fields.detect_button.clicked.connect(self._on_detect_button_clicked)
        fields.local_model.textChanged.connect(self._follow_ask_default)
        fields.local_model.textChanged.connect(self._follow_automatic_budget)
        fields.model_fields[ModelRole.CHAT].textChanged.connect(self._follow_automatic_budget)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    # -- values ------------------------------------------------------------------------

    def _load(self, settings: ModelSettings) -> None:
        self.provider_fields.load(settings)
        self.embedding_box.setCurrentIndex(self.embedding_box.findData(settings.embedding_source))
        self.budget.set_value(settings.context_budget_tokens)
        self.budget.set_automatic(self.automatic_budget)
        self.ask_box.setChecked(settings.asks_before_remembering())
        self._update_for_provider()

    def _update_for_provider(self) -> None:
        self.provider_fields.update_for_provider()
        # The built-in server has no embedding endpoint: WordLlama always.
        local = self.provider_fields.provider == ProviderName.LOCAL
        self.embedding_box.setEnabled(not local)
        if local:
            self.embedding_box.setCurrentIndex(self.embedding_box.findData("local"))
        self._follow_ask_default()
        self._follow_automatic_budget()

    def _follow_ask_default(self) -> None:
        fields = self.provider_fields
        path = fields.local_path() or None
        chosen = ModelSettings.for_preset(fields.provider, local_model_path=path)
        self.ask_box.follow_default(chosen.asks_before_remembering())

    def _follow_automatic_budget(self) -> None:
        """Automatic's figure is the running model's: for another model it is worked out
        from that model's window once saved."""
        same_model = self.provider_fields.same_chat_model()
        self.budget.set_automatic(self.automatic_budget if same_model else None)

    def settings(self) -> ModelSettings:
        """The settings as entered; InvalidInputError says what is wrong."""
        name = self.provider_fields.provider
        values = {
            **self.provider_fields.values(),
            "embedding_source": self.embedding_box.currentData(),
            "context_budget_tokens": self.budget.value(),  # None: automatic
            "ask_before_remembering": self.ask_box.choice(),
            "routing": self.routing_box.currentData(),
            "max_answer_cost": cost_ceiling_of(self.cost_ceiling),
        }
        if name == self.original.provider:
            # Keep what the dialog doesn't show (structured mode, timeouts).
            values.update(self.original.model_dump(include=UNSHOWN_SETTINGS))
        try:
            settings = ModelSettings.for_preset(name, **values)
        except ValidationError as error:
            raise InvalidInputError(validation_text(error)) from None
        settings.resolved_base_url()  # custom without an address is refused here
        return settings

    # -- answers from the session --------------------------------------------------------

    def show_error(self, text: str | None) -> None:
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))

    def detection_failed(self, text: str) -> None:
        self.provider_fields.set_looking(False)
        self.show_error(text)

    def show_detection(self, report: DetectionReport) -> None:
        """Say what answered and fill the model names from the chosen server's list."""
        if self.provider_fields.show_detection(report):
            self._update_for_provider()
        self.fit_height()

    # -- slots -------------------------------------------------------------------------

    def _on_provider_box_changed(self, index: int) -> None:
        self.provider_fields.switch_to(self.provider_fields.provider)
        self.show_error(None)
        self._update_for_provider()
        self.fit_height()

    def fit_height(self) -> None:
        """As tall as the form needs (no gaps after rows hide), at most what the screen
        has room for (MAX_HEIGHT); beyond that the form scrolls."""
        self.layout().activate()
        # As wide as the form needs beside a vertical scroll bar: it never scrolls sideways.
        scroll_bar = self.scroll.verticalScrollBar().sizeHint().width()
        self.scroll.setMinimumWidth(self.form_widget.minimumSizeHint().width() + scroll_bar)
        chrome = self.layout().sizeHint().height() - self.scroll.sizeHint().height()
        wanted = chrome + self.form_widget.sizeHint().height()
        width = max(self.width(), self.minimumSizeHint().width())
        self.resize(width, min(wanted, self.height_cap()))

    def height_cap(self) -> int:
        screen = self.screen() or QGuiApplication.primaryScreen()
        available = screen.availableGeometry().height() if screen is not None else MAX_HEIGHT
        return max(320, min(MAX_HEIGHT, available - SCREEN_MARGIN))

    def _on_detect_button_clicked(self) -> None:
        fields = self.provider_fields
        url = fields.base_url.text().strip()
        try:
            if url and fields.provider != ProviderName.LOCAL:
                refuse_credentials_in(url)  # never sent, not even to look
        except InvalidInputError as error:
            self.show_error(str(error))
            return
        fields.set_looking(True)
        self.show_error(None)
        self.detect_requested.emit(str(fields.provider), url)

    def preferences(self) -> UiPreferences:
        # The dialog shows only some preferences; the rest (the panels) stay as they were.
        return dataclasses.replace(
            self.original_preferences,
            theme=self.theme_box.currentData(),
            enter_sends=self.enter_sends_box.isChecked(),
        )

    def _on_buttons_accepted(self) -> None:
        try:
            settings = self.settings()
        except InvalidInputError as error:
            self.show_error(str(error))
            return
        try:
            instructions = self.instructions_fields.instructions()
        except InvalidInputError as error:
            self.show_error(str(error))
            return
        try:
            store = self.store_fields.choice()
        except InvalidInputError as error:
            self.show_error(str(error))
            return
        self.show_error(None)
        self.save_button.setEnabled(False)
        if self.store_fields.changed():
            self.store_save_requested.emit(store, self.store_fields.typed_password())
        if self.original_instructions is not None and instructions != self.original_instructions:
            self.instructions_save_requested.emit(instructions)
        self.preferences_save_requested.emit(self.preferences())
        self.save_requested.emit(settings, self.provider_fields.api_key.text().strip())

    def saving_failed(self, text: str) -> None:
        self.save_button.setEnabled(True)
        self.show_error(text)
