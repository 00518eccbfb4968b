"""The settings form's provider rows: the provider, its address (with Detect), the model
file of the built-in server, the API key and a model per role. They depend on each other
through the provider: each provider shows its own rows and placeholders, what was typed
for one provider is kept while the dialog is open, and a detection proposes a provider
and its models. The rows are laid out in the dialog's form (one label column for the
whole form), so this is a part of the dialog, not a widget of its own; the dialog wires
its buttons."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.presets import PRESETS, ModelRole, ProviderName, RoleModels, preset
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.ui.untrusted import tooltip_text
from acai_desktop.ui.widgets.file_dialogs import file_dialog
from acai_desktop.ui.widgets.settings_fields import (
    KEY_FILE_NOTE,
    KEY_MISSING_PLACEHOLDER,
    KEY_STORED_PLACEHOLDER,
    LOCAL_MODEL_PLACEHOLDER,
    NO_KEY_PLACEHOLDER,
    ROLE_LABELS,
    ROLE_TIPS,
    detection_text,
    hint,
)
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

if TYPE_CHECKING:  # detection needs the model client (openai): loaded when it runs
    from acai_desktop.core.models.detection import DetectionReport

PROVIDER_NOTES = {
    ProviderName.LOCAL: "Runs a small model on this computer; nothing leaves it.",
    ProviderName.CUSTOM: "Any server that speaks the OpenAI API.",
}


class ProviderFields(QObject):
    def __init__(
        self,
        settings: ModelSettings,
        *,
        providers_with_key: set[str] | frozenset[str],
        key_warning: str | None,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        #: The settings as the dialog opened them.
        self.original = settings
        self.providers_with_key = set(providers_with_key)
        #: What was typed for each provider while the dialog is open (address, model
        #: names, model file): switching away and back keeps it.
        self._drafts: dict[ProviderName, tuple[str, RoleModels, str]] = {}
        self._shown_provider = settings.provider
        self._file_dialog: QFileDialog | None = None
        self.form: QFormLayout | None = None

        self.provider_box = ignore_wheel_unless_focused(QComboBox())
        for name, entry in PRESETS.items():
            self.provider_box.addItem(entry.label, str(name))
        self.provider_note = hint()
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://localhost:8000/v1")
        self.detect_button = QPushButton("Detect")
        self.detect_button.setToolTip("Look for model servers running on this computer")
        self.detect_result = hint()
        self.detect_result.setObjectName("DetectResult")
        self.detect_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detect_result.setVisible(False)
        self.url_row = QHBoxLayout()
        self.url_row.setSpacing(6)
        self.url_row.addWidget(self.base_url, 1)
        self.url_row.addWidget(self.detect_button)

        self.local_model = QLineEdit()
        self.local_model.setPlaceholderText(LOCAL_MODEL_PLACEHOLDER)
        self.local_model.setClearButtonEnabled(True)
        self.browse_button = QPushButton("Choose…")
        self.local_row = QWidget()
        local_layout = QHBoxLayout(self.local_row)
        local_layout.setContentsMargins(0, 0, 0, 0)
        local_layout.setSpacing(6)
        local_layout.addWidget(self.local_model, 1)
        local_layout.addWidget(self.browse_button)

        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setObjectName("ApiKey")
        self.key_warning = hint(KEY_FILE_NOTE if key_warning else "")
        self.key_warning.setObjectName("KeyWarning")
        self.key_warning.setToolTip(tooltip_text(key_warning))
        self.key_warning.setVisible(bool(key_warning))

        self.model_fields: dict[ModelRole, QLineEdit] = {}
        for role in ModelRole:
            field = QLineEdit()
            field.setToolTip(ROLE_TIPS[role])
            self.model_fields[role] = field
        self.browse_button.clicked.connect(self._on_browse_button_clicked)

    def add_rows(self, form: QFormLayout) -> None:
        """Lay the rows out in ``form``, which then shows and hides them per provider."""
        self.form = form
        form.addRow("Provider", self.provider_box)
        form.addRow("", self.provider_note)
        form.addRow("Base URL", self.url_row)
        form.addRow("", self.detect_result)
        form.addRow("Model file", self.local_row)
        form.addRow("API key", self.api_key)
        form.addRow("", self.key_warning)
        models_title = QLabel("MODELS")
        models_title.setObjectName("SectionLabel")
        form.addRow(models_title)
        for role, field in self.model_fields.items():
            form.addRow(ROLE_LABELS[role], field)
        fields = (self.provider_box, self.base_url, self.local_model, self.api_key)
        for field in (*fields, *self.model_fields.values()):
            label = form.labelForField(field)
            if isinstance(label, QLabel):
                field.setAccessibleName(label.text())
        self.base_url.setAccessibleName("Base URL")  # its row holds Detect too

    # -- values ------------------------------------------------------------------------

    @property
    def provider(self) -> ProviderName:
        return ProviderName(self.provider_box.currentData())

    def set_provider(self, name: ProviderName | str) -> None:
        self.provider_box.setCurrentIndex(self.provider_box.findData(str(ProviderName(name))))

    def load(self, settings: ModelSettings) -> None:
        self.provider_box.blockSignals(True)
        self.set_provider(settings.provider)
        self.provider_box.blockSignals(False)
        self.base_url.setText(settings.base_url or preset(settings.provider).base_url or "")
        self._fill_models(settings.models)
        self.local_model.setText(settings.local_model_path or "")

    def _fill_models(self, models: RoleModels) -> None:
        for role, field in self.model_fields.items():
            field.setText(models.for_role(role))

    def local_path(self) -> str:
        return self.local_model.text().strip() if self.provider == ProviderName.LOCAL else ""

    def values(self) -> dict:
        """The provider's part of the settings as entered (``ModelSettings.for_preset``'s
        keywords); InvalidInputError says what is wrong."""
        name = self.provider
        models = {role.value: field.text().strip() for role, field in self.model_fields.items()}
        empty = [ROLE_LABELS[ModelRole(role)] for role, value in models.items() if not value]
        if empty:
            raise InvalidInputError(f"Enter a model name for: {', '.join(empty)}.")
        url = self.base_url.text().strip()
        if name == ProviderName.LOCAL or url == (preset(name).base_url or ""):
            url = ""  # None means the preset's address, which follows the preset
        if url and not url.startswith(("http://", "https://")):
            raise InvalidInputError("The base URL must start with http:// or https://.")
        return {
            "base_url": url or None,
            "models": RoleModels(**models),
            "local_model_path": self.local_path() or None,
        }

    def same_chat_model(self) -> bool:
        """The chat model entered is the one the dialog opened with (an automatic
        budget's figure is known only for that one)."""
        return (
            self.provider == self.original.provider
            and self.model_fields[ModelRole.CHAT].text().strip()
            == self.original.model_for(ModelRole.CHAT)
            and (self.local_path() or None) == self.original.local_model_path
        )

    # -- per provider ------------------------------------------------------------------

    def switch_to(self, name: ProviderName) -> None:
        """Keep what was typed for the provider shown so far; show ``name``'s fields as
        last typed in this dialog, else as saved, else its preset's."""
        models = RoleModels(
            **{role.value: field.text() for role, field in self.model_fields.items()}
        )
        self._drafts[self._shown_provider] = (self.base_url.text(), models, self.local_model.text())
        self._shown_provider = name
        if name in self._drafts:
            url, models, local_path = self._drafts[name]
            self.base_url.setText(url)
            self._fill_models(models)
            self.local_model.setText(local_path)
            return
        source = self.original if name == self.original.provider else ModelSettings.for_preset(name)
        self.base_url.setText(source.base_url or preset(name).base_url or "")
        self._fill_models(source.models)

    def update_for_provider(self) -> None:
        """The rows, placeholders and note the provider chosen has."""
        assert self.form is not None, "add_rows first"
        name = self.provider
        entry = preset(name)
        local = name == ProviderName.LOCAL
        self.base_url.setEnabled(not local)
        self.detect_button.setEnabled(not local)
        if local:
            self.base_url.setPlaceholderText("The built-in server picks its own address")
        else:
            self.base_url.setPlaceholderText(entry.base_url or "http://localhost:8000/v1")
        self.form.setRowVisible(self.local_row, local)
        self.form.setRowVisible(self.api_key, not local)
        self.form.setRowVisible(self.key_warning, not local and bool(self.key_warning.text()))
        if str(name) in self.providers_with_key:
            self.api_key.setPlaceholderText(KEY_STORED_PLACEHOLDER)
        elif entry.needs_api_key:
            self.api_key.setPlaceholderText(KEY_MISSING_PLACEHOLDER)
        else:
            self.api_key.setPlaceholderText(NO_KEY_PLACEHOLDER)
        self.provider_note.setText(PROVIDER_NOTES.get(name, entry.notes))
        self.provider_note.setVisible(bool(self.provider_note.text()))
        self.form.setRowVisible(self.provider_note, bool(self.provider_note.text()))

    # -- detection ---------------------------------------------------------------------

    def set_looking(self, looking: bool) -> None:
        """Detect was pressed (True) or its answer came (False)."""
        self.detect_button.setEnabled(not looking and self.provider != ProviderName.LOCAL)
        self.detect_button.setText("Looking…" if looking else "Detect")

    def show_detection(self, report: DetectionReport) -> bool:
        """Say what answered and fill the model names from the chosen server's list;
        True when the provider changed (what depends on it must follow)."""
        assert self.form is not None, "add_rows first"
        self.set_looking(False)
        self.detect_result.setText(detection_text(report))
        self.detect_result.setVisible(True)
        self.form.setRowVisible(self.detect_result, True)

        current = self.provider
        if any(p.provider == current for p in report.reachable):
            proposed = dataclasses.replace(report, proposal=current).proposed_settings()
        elif report.reachable:
            proposed = report.proposed_settings()
        else:
            return False
        if proposed is None:
            return False
        if proposed.provider != current:
            self.provider_box.blockSignals(True)
            self.set_provider(proposed.provider)
            self.provider_box.blockSignals(False)
            self.switch_to(proposed.provider)
        self.base_url.setText(proposed.base_url or preset(proposed.provider).base_url or "")
        self._fill_models(proposed.models)
        return proposed.provider != current

    def _on_browse_button_clicked(self) -> None:
        start = self.local_model.text().strip()
        folder = str(Path(start).expanduser().parent) if start else ""
        dialog = file_dialog(self.parent(), "Choose a GGUF model file", start=folder)
        dialog.setNameFilters(["GGUF models (*.gguf)", "All files (*)"])
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.local_model.setText)
        self._file_dialog = dialog
        dialog.open()  # never exec(): a nested loop would stall the asyncio loop
