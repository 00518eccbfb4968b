"""A turn that withholds a local-only memory, in the real window (issue 42, item 4): the
profile's server (the scripted one, on 127.0.0.1) is said to run in the cloud in
model-table.json, and routing is off, so the memory marked local only that matches the
question stays out of the prompt. The server never receives its text; the answer's
footer counts what was withheld and its Sources list it, with the reason."""

from __future__ import annotations

import functools
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.detection import detect_providers
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_desktop.ui.widgets.memory_card import badges_of
from acai_desktop.ui.widgets.message_delegate import footer_of
from acai_desktop.ui.widgets.withheld_card import WITHHELD_HEAD
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.closed_ports import presets_with_nothing_there
from tests.support.gui import gui_session, run_in_session, wait_until

SECRET = "The user's passport number is ZK4471903"
SECRET_WORD = "ZK4471903"


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_sources_show_the_local_only_memory_a_turn_withheld(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    # A proxy on this computer that forwards to a cloud provider, as the user says.
    (profile.data_dir / "model-table.json").write_text(
        json.dumps({"servers": {fake_openai.base_url: {"where": "the cloud"}}}), encoding="utf-8"
    )

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, assistant = session.window, session.assistant
        secret = await assistant.memories.remember(SECRET, category="Personal", explicit=True)
        memories, panel = window.memories_model, window.memory_panel
        await wait_until(lambda: memories.row_of(secret.id) is not None)
        assert panel.select_memory(secret.id)
        QTest.mouseClick(panel.actions_bar.local_only_button, Qt.MouseButton.LeftButton)
        card = lambda: memories.index(memories.row_of(secret.id))  # noqa: E731
        await wait_until(lambda: card().data(MemoryRoles.LOCAL_ONLY) == "own")
        assert LOCAL_ONLY_MARK in [text for text, _, _ in badges_of(card())]

        window.composer.input.setPlainText("What is my passport number?")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and not window.composer.busy)
        await assistant.runner.wait_idle(timeout=60)  # what the turn taught, learned
        answer = messages.index(1)
        notes, actions = footer_of(answer)
        assert ("1 local-only memory withheld", "faint") in notes
        assert any(name == "sources" for name, _label in actions)

        session.turns.show_sources(answer.data(MessageRoles.ID))
        dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: WITHHELD_HEAD in dialog.browser.toPlainText())
        return dialog.browser.toPlainText(), answer.data(MessageRoles.MESSAGE).plan

    with presets_with_nothing_there() as nothing_there:
        detect = functools.partial(detect_providers, urls=nothing_there, environ={})
        sources, plan = run_in_session(gui_session(profile, detect=detect), scenario)
    # The card: why, and the memory's text as it reads on this computer.
    assert plan["withheld"]["memory_ids"]
    assert "withheld: local only; the answering model runs in the cloud (127.0.0.1:" in sources
    assert f"Memory: “{SECRET}”" in sources
    # Over HTTP, nothing the server received holds it: no answer, no learning job.
    assert fake_openai.chat_requests()
    for request in fake_openai.requests:
        assert SECRET_WORD not in json.dumps(request.json)
