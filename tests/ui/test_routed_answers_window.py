"""A routed turn in the real window (issue 42, item 6): the answer's footer names the
model that answered and why, and a model that failed is said."""

from __future__ import annotations

import functools

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.detection import detect_providers
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_desktop.ui.widgets.message_delegate import footer_of
from acai_lab.scripted_openai import Reply
from tests.support.assistant import configure_profile
from tests.support.closed_ports import presets_with_nothing_there
from tests.support.gui import gui_session, run_in_session, wait_until


def test_the_footer_says_which_model_answered_and_why(qapp, tmp_path, fake_openai):
    fake_openai.models = ["SmolLM2-135M-Instruct", "gpt-4o"]
    fake_openai.responder = lambda request: Reply(text=f"Answer from {request['model']}.")
    profile = configure_profile(
        tmp_path / "profile",
        fake_openai,
        models=RoleModels.same("SmolLM2-135M-Instruct"),
        routing="best",
    )

    async def scenario(session: AppController):
        window = session.window
        window.composer.input.setPlainText("Write a Python function that reverses a list.")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and not window.composer.busy)
        answer = messages.index(1)
        notes, actions = footer_of(answer)
        assert ("sources", "Sources") in actions  # no memory fed it, but it was routed
        session.turns.show_sources(answer.data(MessageRoles.ID))
        dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: "MODEL" in dialog.browser.toPlainText())
        return answer.data(0), [text for text, _ in notes], dialog.browser.toPlainText()

    with presets_with_nothing_there() as nothing_there:
        detect = functools.partial(detect_providers, urls=nothing_there, environ={})
        shown, notes, sources = run_in_session(gui_session(profile, detect=detect), scenario)
    assert "Answer from gpt-4o." in shown
    assert "code → gpt-4o on this computer" in notes
    # Sources show the whole decision: the policy and each model with its verdict.
    assert "Policy: best quality" in sources
    where = "(Custom (OpenAI-compatible URL), this computer)"
    assert f"→ gpt-4o {where}: answered" in sources
    assert f"✗ SmolLM2-135M-Instruct {where}: too small for code" in sources
