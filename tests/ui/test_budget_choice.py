"""The context budget as the user sees it: automatic (what it comes to, and why) or a
number, in Settings and in a chat's ⚙ dialog, and in the header's tooltip; the boxes
don't change under a wheel that was scrolling the form."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.conversations.chat_settings import (
    AUTOMATIC,
    ChatSettings,
    ProfileChatDefaults,
)
from acai_desktop.core.models.context_window import ContextWindow, WindowSource
from acai_desktop.core.models.presets import ModelRole, ProviderName
from acai_desktop.core.models.prompt_budget import resolve_budget
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.budget_field import UNKNOWN_AUTOMATIC
from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_settings_session import open_chat_settings, probed

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")

LLAMA = ContextWindow(131_072, "llama3.1", WindowSource.SERVER, "Ollama")
AUTOMATIC_TEXT = "Automatic: 16,000 tokens (half of llama3.1's 128k window, capped)"


def wheel(widget: QWidget, steps: int = -1) -> None:
    """Notches of the mouse wheel over ``widget``, through the window system (so Qt
    hands an unwanted one on to the parents, as it does a real one)."""
    window = widget.window()
    at = widget.mapTo(window, widget.rect().center())
    QTest.wheelEvent(window.windowHandle(), QPointF(at), QPoint(0, 120 * steps))
    QApplication.processEvents()


def test_a_guarded_box_lets_the_wheel_scroll_the_form_until_it_is_focused(qtbot):
    area = QScrollArea()
    form = QWidget()
    layout = QVBoxLayout(form)
    first = QLineEdit()  # the form's first field has the focus, as in a dialog
    layout.addWidget(first)
    box = ignore_wheel_unless_focused(QSpinBox())
    box.setRange(0, 100)
    box.setValue(50)
    layout.addWidget(box)
    layout.addSpacing(2000)  # a form taller than its window: it scrolls
    area.setWidget(form)
    area.resize(300, 200)
    qtbot.addWidget(area)
    area.show()
    qtbot.waitExposed(area)
    qtbot.waitUntil(first.hasFocus)
    scroll = area.verticalScrollBar()
    wheel(box)
    assert box.value() == 50 and scroll.value() > 0  # the form scrolled instead
    assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel gives no focus
    scroll.setValue(0)  # the box back under the pointer
    box.setFocus()  # clicked or tabbed into
    qtbot.waitUntil(box.hasFocus)
    wheel(box)
    assert box.value() != 50


def test_the_chat_dialog_offers_automatic_or_a_number_for_the_chats_own_budget(qtbot):
    profile = ProfileChatDefaults("llama3.1", None)
    automatic = resolve_budget(None, LLAMA)
    dialog = ChatSettingsDialog(
        profile, ChatSettings(), ["llama3.1"], from_settings=automatic, automatic=automatic
    )
    qtbot.addWidget(dialog)
    assert f"context budget: {AUTOMATIC_TEXT}" in dialog.note.text()
    assert not dialog.own_budget.isChecked() and not dialog.budget.isEnabled()
    assert dialog.budget.is_automatic() and dialog.budget.note.text().startswith(AUTOMATIC_TEXT)
    dialog.own_budget.setChecked(True)
    assert dialog.chosen() == ChatSettings(context_budget_tokens=AUTOMATIC)
    dialog.budget.mode.setCurrentIndex(dialog.budget.mode.findData(False))
    assert dialog.budget.tokens.isEnabled()
    assert dialog.budget.tokens.value() == 16_000  # a number starts from automatic's
    dialog.budget.tokens.setValue(8000)
    assert dialog.chosen() == ChatSettings(context_budget_tokens=8000)
    dialog.budget.tokens.setValue(200_000)  # more than the model's window holds
    assert dialog.budget.note.text().startswith("More than llama3.1's 128k window")


def test_the_chat_dialogs_budget_tick_is_level_with_the_choice_not_the_note(qtbot):
    # The field is two rows (the choice, and the note under it): its tick lines up with
    # the first, as the other ticks do with their one-row fields.
    automatic = resolve_budget(None, LLAMA)
    dialog = ChatSettingsDialog(
        ProfileChatDefaults("llama3.1", None), ChatSettings(), automatic=automatic
    )
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)

    def middle(widget: QWidget) -> int:
        return widget.mapTo(dialog, widget.rect().center()).y()

    tick, choice, note = dialog.own_budget, dialog.budget.mode, dialog.budget.note
    assert abs(middle(tick) - middle(choice)) <= 2
    assert tick.mapTo(dialog, tick.rect().bottomLeft()).y() < note.mapTo(dialog, QPoint()).y()
    assert abs(middle(dialog.own_model) - middle(dialog.model)) <= 2


def test_the_chat_dialog_shows_a_chats_own_automatic_and_own_number_as_saved(qtbot):
    profile = ProfileChatDefaults("llama3.1", 5000)
    own_auto = ChatSettingsDialog(
        profile,
        ChatSettings(context_budget_tokens=AUTOMATIC),
        automatic=resolve_budget(None, LLAMA),
    )
    qtbot.addWidget(own_auto)
    assert own_auto.own_budget.isChecked() and own_auto.budget.is_automatic()
    assert "context budget: 5,000 tokens" in own_auto.note.text()
    own_number = ChatSettingsDialog(profile, ChatSettings(context_budget_tokens=1200))
    qtbot.addWidget(own_number)
    assert own_number.budget.value() == 1200
    assert own_number.chosen().context_budget_tokens == 1200


def test_settings_show_automatic_with_its_figure_and_save_either_choice(qtbot):
    settings = ModelSettings.for_preset(ProviderName.OLLAMA)
    dialog = SettingsDialog(settings, automatic_budget=resolve_budget(None, LLAMA))
    qtbot.addWidget(dialog)
    assert dialog.budget.is_automatic()
    assert dialog.budget.note.text().startswith(AUTOMATIC_TEXT)
    assert dialog.settings().context_budget_tokens is None
    dialog.budget.mode.setCurrentIndex(dialog.budget.mode.findData(False))
    dialog.budget.tokens.setValue(6000)
    assert dialog.settings().context_budget_tokens == 6000
    dialog.budget.set_value(None)
    # Another chat model: its window is asked for once saved.
    dialog.provider_fields.model_fields[ModelRole.CHAT].setText("qwen2.5:14b")
    assert dialog.budget.note.text() == UNKNOWN_AUTOMATIC
    dialog.provider_fields.model_fields[ModelRole.CHAT].setText(settings.model_for("chat"))
    assert dialog.budget.note.text().startswith(AUTOMATIC_TEXT)
    explicit = SettingsDialog(ModelSettings.for_preset("ollama", context_budget_tokens=3000))
    qtbot.addWidget(explicit)
    assert not explicit.budget.is_automatic() and explicit.budget.value() == 3000


def test_the_header_and_both_dialogs_say_what_the_budget_comes_to(qapp, tmp_path, fake_openai):
    """A llama.cpp server running the model with an 8k window: every chat's automatic
    budget is 4,096 tokens, and the window says so."""
    fake_openai.routes["GET /props"] = {"default_generation_settings": {"n_ctx": 8192}}
    profile = configure_profile(tmp_path / "profile", fake_openai, provider=ProviderName.LLAMACPP)
    expected = "Automatic: 4,096 tokens (half of fake-chat's 8k window)"

    async def scenario(session: AppController):
        window = session.window
        await probed(session)
        tip = window.chat_settings_button.toolTip()
        assert f"Context budget (from profile): {expected}" in tip
        assert "As llama.cpp runs it." in tip
        assert window.composer.prompt_budget_tokens == 4096
        dialog = await open_chat_settings(window)
        assert f"context budget: {expected}" in dialog.note.text()
        assert dialog.budget.note.text().startswith(expected)
        dialog.reject()
        window.settings_button.click()
        settings = await wait_until(lambda: window.findChild(SettingsDialog))
        assert settings.budget.is_automatic()
        assert settings.budget.note.text().startswith(expected)
        settings.reject()

    run_in_session(gui_session(profile), scenario)
