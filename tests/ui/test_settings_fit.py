"""The settings dialog fits a 1366×768 screen in every state (the form scrolls, the
buttons stay in view), leaves no gaps when rows hide, and keeps what was typed for each
provider while it is open."""

from __future__ import annotations

from pathlib import Path

import pytest

from acai_desktop.core.models.detection import DetectionReport, ProviderProbe
from acai_desktop.core.models.presets import ModelRole, ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.ui.theme import apply_theme
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog

#: A 768-pixel screen less a desktop panel and the dialog's title bar.
ROOM_ON_A_768_SCREEN = 768 - 60


@pytest.fixture
def open_dialog(qtbot, qapp):
    apply_theme(qapp)

    def make(settings: ModelSettings) -> SettingsDialog:
        dialog = SettingsDialog(settings)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        return dialog

    return make


def choose(dialog: SettingsDialog, provider: ProviderName) -> None:
    dialog.provider_fields.provider_box.setCurrentIndex(
        dialog.provider_fields.provider_box.findData(str(provider))
    )


def everything_found() -> DetectionReport:
    models = [f"model-{n}:latest" for n in range(12)]
    probes = [
        ProviderProbe(name, f"http://localhost:{port}/v1", True, models)
        for name, port in (
            (ProviderName.OLLAMA, 11434),
            (ProviderName.LMSTUDIO, 1234),
            (ProviderName.LLAMACPP, 8080),
        )
    ]
    return DetectionReport(probes, True, True, Path("model.gguf"), ProviderName.OLLAMA)


def save_button_in_view(dialog: SettingsDialog) -> bool:
    button = dialog.save_button
    bottom = button.mapTo(dialog, button.rect().bottomLeft()).y()
    return button.isVisible() and bottom <= dialog.height()


def nothing_cut_sideways(dialog: SettingsDialog) -> bool:
    viewport = dialog.scroll.viewport()
    button = dialog.provider_fields.detect_button
    right = button.mapTo(viewport, button.rect().topRight()).x()
    return (
        dialog.form_widget.width() >= dialog.form_widget.minimumSizeHint().width()
        and right <= viewport.width()
        and button.width() >= button.sizeHint().width()
    )


def test_it_fits_a_768_screen_after_detect_and_for_every_provider(open_dialog, qtbot):
    dialog = open_dialog(ModelSettings.for_preset(ProviderName.CUSTOM, base_url="http://h/v1"))
    dialog.show_detection(everything_found())
    qtbot.wait(10)
    assert dialog.provider_fields.detect_result.isVisible()
    assert dialog.height() <= ROOM_ON_A_768_SCREEN
    assert save_button_in_view(dialog)
    assert nothing_cut_sideways(dialog)
    for provider in ProviderName:
        choose(dialog, provider)
        qtbot.wait(10)
        assert dialog.height() <= ROOM_ON_A_768_SCREEN, provider
        assert save_button_in_view(dialog), provider
        assert nothing_cut_sideways(dialog), provider


def test_switching_custom_to_local_leaves_no_gap(open_dialog, qtbot):
    fresh_local = open_dialog(ModelSettings.for_preset(ProviderName.LOCAL))
    local_height = fresh_local.height()
    dialog = open_dialog(ModelSettings.for_preset(ProviderName.CUSTOM, base_url="http://h/v1"))
    choose(dialog, ProviderName.LOCAL)
    qtbot.wait(10)
    assert abs(dialog.height() - local_height) <= 4


def test_each_providers_fields_are_kept_while_the_dialog_is_open(open_dialog):
    dialog = open_dialog(ModelSettings.for_preset(ProviderName.CUSTOM, base_url="http://h/v1"))
    dialog.provider_fields.base_url.setText("http://my-server:9000/v1")
    dialog.provider_fields.model_fields[ModelRole.CHAT].setText("my-chat")
    dialog.provider_fields.model_fields[ModelRole.EMBEDDING].setText("my-embedder")
    choose(dialog, ProviderName.LOCAL)
    dialog.provider_fields.local_model.setText("/models/tiny.gguf")
    choose(dialog, ProviderName.OLLAMA)
    choose(dialog, ProviderName.CUSTOM)
    assert dialog.provider_fields.base_url.text() == "http://my-server:9000/v1"
    assert dialog.provider_fields.model_fields[ModelRole.CHAT].text() == "my-chat"
    assert dialog.provider_fields.model_fields[ModelRole.EMBEDDING].text() == "my-embedder"
    choose(dialog, ProviderName.LOCAL)
    assert dialog.provider_fields.local_model.text() == "/models/tiny.gguf"
    assert dialog.settings().local_model_path == "/models/tiny.gguf"
