"""A routed turn in the real window (issue 42, item 6): the answer's footer names the
model that answered and why, and a model that failed is said."""

from __future__ import annotations

import functools
import json

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.detection import detect_providers
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.routing.model_table import FILE_NAME
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_desktop.ui.widgets.message_delegate import footer_of
from acai_lab.scripted_model import call_kind, fake_model
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


def _cloud_profile(tmp_path, server, routing="best"):
    """A profile whose server is said to be the cloud (priced), with gpt-4o for every role."""
    profile = configure_profile(
        tmp_path / "profile", server, models=RoleModels.same("gpt-4o"), routing=routing
    )
    (profile.data_dir / FILE_NAME).write_text(
        json.dumps({"servers": {server.base_url: {"where": "the cloud"}}})
    )
    return profile


def test_a_model_that_fails_hands_the_turn_on_and_the_footer_says_so(qapp, tmp_path, fake_openai):
    fake_openai.models = ["gpt-4o", "gpt-4o-mini"]

    def failing_best(request: dict) -> Reply:
        if request["model"] == "gpt-4o":
            return Reply(status=503, error_message="overloaded")
        return Reply(text=f"Answer from {request['model']}.")

    fake_openai.responder = failing_best
    profile = _cloud_profile(tmp_path, fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.composer.input.setPlainText("Hello there, how are you today?")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and not window.composer.busy)
        notes, _actions = footer_of(messages.index(1))
        return messages.index(1).data(0), [text for text, _ in notes]

    with presets_with_nothing_there() as nothing_there:
        detect = functools.partial(detect_providers, urls=nothing_there, environ={})
        shown, notes = run_in_session(gui_session(profile, detect=detect), scenario)
    assert "Answer from gpt-4o-mini." in shown
    assert any(note.startswith("answered by gpt-4o-mini because gpt-4o failed") for note in notes)


def test_what_the_window_learns_goes_to_the_cheapest_model_that_does_json(
    qapp, tmp_path, fake_openai
):
    """The answer comes from the best model; the learning of it from the cheapest."""
    fake_openai.models = ["gpt-4o", "gpt-4o-mini"]
    fake_openai.responder = fake_model
    profile = _cloud_profile(tmp_path, fake_openai)

    async def scenario(session: AppController):
        window = session.window
        window.composer.input.setPlainText("I live in Lisbon.")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        learned = "The user lives in Lisbon"
        memories = window.memories_model

        def contents() -> list[str]:
            return [memories.index(i).data(MemoryRoles.CONTENT) for i in range(memories.rowCount())]

        await wait_until(lambda: learned in contents())
        return learned

    with presets_with_nothing_there() as nothing_there:
        detect = functools.partial(detect_providers, urls=nothing_there, environ={})
        learned = run_in_session(gui_session(profile, detect=detect), scenario)
    assert "Lisbon" in learned
    calls = {(call_kind(r.json), r.json["model"]) for r in fake_openai.chat_requests()}
    assert ("chat", "gpt-4o") in calls
    assert {("triage", "gpt-4o-mini"), ("extraction", "gpt-4o-mini")} <= calls
    assert not {("triage", "gpt-4o"), ("extraction", "gpt-4o")} & calls
