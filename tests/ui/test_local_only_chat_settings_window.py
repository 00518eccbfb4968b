"""Local only from the chat's ⚙ (issue 42, item 4), in the real window over the real
core. The profile's server (scripted, on 127.0.0.1) is said to run in the cloud in
model-table.json, as a proxy that forwards to one would be.

A new chat marked local only in its ⚙ before its first message is made local only with
that message: the message never reaches the cloud; a model on this computer (a scripted
"Ollama", as detection finds it) answers it, or, with none, the turn is refused and says
why. An existing chat is marked from its ⚙ as from its sidebar menu; unmarking asks
first, and Cancel (of the question or of the dialog) changes nothing. A chat of a
local-only project shows its project's mark, which its ⚙ can't take off."""

from __future__ import annotations

import dataclasses
import json
from contextlib import ExitStack

import pytest

from acai_desktop.core.models.detection import DetectionReport, detect_providers
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.routing.model_table import FILE_NAME
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.local_only_text import BECAUSE_OF_PROJECT, LOCAL_ONLY_TIP, UNMARK_ACTION
from acai_desktop.ui.models.conversations_model import ConversationRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_settings_dialog import ChatSettingsDialog
from acai_lab.scripted_model import fake_model
from acai_lab.strict_server import StrictOpenAIServer
from tests.support.assistant import configure_profile
from tests.support.closed_ports import presets_with_nothing_there
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import send
from tests.ui.test_local_only_marks_session import answer, stored

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")

LOCAL_MODEL = "llama3.1:8b"
HOME = "I live at 12 Quarry Lane and my door code is 7731."
SECRET_WORDS = ("Quarry", "7731")


def said_to_the_cloud(profile, server) -> None:
    (profile.data_dir / FILE_NAME).write_text(
        json.dumps({"servers": {server.base_url: {"where": "the cloud"}}}), encoding="utf-8"
    )


def detection(urls: dict[ProviderName, str]):
    """Detection that sees ``urls`` and no built-in model (this machine's may exist)."""

    async def detect() -> DetectionReport:
        found = await detect_providers(0.5, urls=urls, environ={})
        return dataclasses.replace(found, bundled_model=None)

    return detect


async def open_chat_settings(window) -> ChatSettingsDialog:
    window.chat_settings_button.click()
    return await wait_until(lambda: window.findChild(ChatSettingsDialog))


async def save(window, dialog: ChatSettingsDialog) -> None:
    dialog.save_button.click()
    await wait_until(lambda: window.findChild(ChatSettingsDialog) is None)


def badge(window) -> str | None:
    """The header's Local only badge's tooltip while it shows (None: hidden)."""
    shown = window.local_only_badge
    return shown.toolTip() if shown.isVisibleTo(window) else None


@pytest.mark.parametrize("model_here", [True, False], ids=["answered-here", "refused"])
def test_a_new_chat_made_local_only_in_its_settings_never_reaches_the_cloud(
    qapp, tmp_path, fake_openai, model_here
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    said_to_the_cloud(profile, fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window = session.window
        assert session.chat.conversation_id is None and badge(window) is None
        dialog = await open_chat_settings(window)
        box = dialog.local_only_box
        assert box.isEnabled() and not box.isChecked()
        box.setChecked(True)
        dialog.reject()  # Cancel: the new chat stays as it was
        await wait_until(lambda: window.findChild(ChatSettingsDialog) is None)
        assert not session.chat.new_chat_local_only and badge(window) is None

        dialog = await open_chat_settings(window)
        dialog.local_only_box.setChecked(True)
        await save(window, dialog)
        await wait_until(lambda: session.chat.new_chat_local_only)
        assert LOCAL_ONLY_TIP in badge(window)
        dialog = await open_chat_settings(window)  # the choice is shown again
        assert dialog.local_only_box.isChecked() and dialog.local_only_box.isEnabled()
        dialog.reject()
        await wait_until(lambda: window.findChild(ChatSettingsDialog) is None)

        send(window, HOME)
        messages = window.messages_model
        await wait_until(
            lambda: (
                messages.rowCount() == 2
                and messages.index(1).data(MessageRoles.STATUS) in ("complete", "error")
                and not window.composer.busy
            )
        )
        await session.assistant.runner.wait_idle(timeout=60)  # its title and learning
        chat_id = session.chat.conversation_id
        assert chat_id is not None and LOCAL_ONLY_TIP in badge(window)
        row = window.conversations_model.row_of(chat_id)
        listed = window.conversations_model.index(row).data(ConversationRoles.LOCAL_ONLY)
        answered = messages.index(1)
        return (
            chat_id,
            listed,
            answered.data(MessageRoles.STATUS),
            answered.data(MessageRoles.ERROR),
        )

    with ExitStack() as stack:
        urls = stack.enter_context(presets_with_nothing_there())
        if model_here:
            ollama = stack.enter_context(StrictOpenAIServer())
            ollama.models, ollama.responder = [LOCAL_MODEL], fake_model
            urls[ProviderName.OLLAMA] = ollama.base_url
        session = gui_session(profile, detect=detection(urls))
        chat_id, listed, status, error = run_in_session(session, scenario)
        sent_here = (
            "\n".join(json.dumps(r.json) for r in ollama.chat_requests()) if model_here else ""
        )
    for request in fake_openai.requests:  # not the turn, nor its title or learning
        assert not any(word in json.dumps(request.json) for word in SECRET_WORDS)
    # Made local only with the conversation: stored so, listed so.
    assert stored(profile, "conversations", chat_id) and listed == "own"
    if model_here:
        assert status == "complete" and "Quarry" in sent_here
    else:
        assert status == "error" and "This chat is local only" in error
        assert "unmark the chat as local only" in error


def test_an_existing_chat_is_marked_and_unmarked_from_its_settings(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, assistant, conversations = session.window, session.assistant, session.conversations
        chat = await assistant.conversations.create("Health questions")
        await assistant.conversations.add_message(chat.id, "user", "My blood type is AB.")
        conversations.open(chat.id)
        await wait_until(lambda: session.chat.conversation_id == chat.id)
        listed = window.conversations_model
        mark = lambda: listed.index(listed.row_of(chat.id)).data(ConversationRoles.LOCAL_ONLY)  # noqa: E731

        # Ticked then Cancel: nothing changes; ticked then Save: marked at once.
        dialog = await open_chat_settings(window)
        assert not dialog.local_only_box.isChecked() and dialog.local_only_box.isEnabled()
        dialog.local_only_box.setChecked(True)
        dialog.reject()
        await wait_until(lambda: window.findChild(ChatSettingsDialog) is None)
        assert not stored(profile, "conversations", chat.id) and badge(window) is None
        dialog = await open_chat_settings(window)
        dialog.local_only_box.setChecked(True)
        await save(window, dialog)
        await wait_until(lambda: mark() == "own")
        assert stored(profile, "conversations", chat.id)
        assert conversations.question is None  # marking asks nothing
        await wait_until(lambda: badge(window) is not None)
        assert LOCAL_ONLY_TIP in badge(window)

        # Unticked: asked first; Cancel keeps the mark, Unmark takes it off.
        dialog = await open_chat_settings(window)
        assert dialog.local_only_box.isChecked()
        dialog.local_only_box.setChecked(False)
        await save(window, dialog)
        question = await wait_until(lambda: conversations.question)
        assert "may then reach models that run elsewhere" in question.text()
        assert "Health questions" in question.text()
        assert stored(profile, "conversations", chat.id)  # nothing before the answer
        answer(question, "Cancel")
        await wait_until(lambda: not question.isVisible())
        assert stored(profile, "conversations", chat.id) and badge(window) is not None
        dialog = await open_chat_settings(window)
        assert dialog.local_only_box.isChecked()  # still marked
        dialog.local_only_box.setChecked(False)
        conversations.question = None
        await save(window, dialog)
        answer(await wait_until(lambda: conversations.question), UNMARK_ACTION)
        await wait_until(lambda: mark() is None)
        assert not stored(profile, "conversations", chat.id)
        await wait_until(lambda: badge(window) is None)

        # In a local-only project: its project's mark, shown and not the box's to change.
        project = await assistant.projects.create("Payroll")
        await assistant.projects.set_local_only(project.id, True)
        await assistant.projects.move_conversation(chat.id, project.id)
        await wait_until(lambda: mark() == "project")
        await wait_until(lambda: badge(window) is not None and BECAUSE_OF_PROJECT in badge(window))
        dialog = await open_chat_settings(window)
        box = dialog.local_only_box
        assert box.isChecked() and not box.isEnabled() and BECAUSE_OF_PROJECT in box.toolTip()
        conversations.question = None
        await save(window, dialog)
        assert conversations.question is None and not stored(profile, "conversations", chat.id)

        # A new chat there is local only by its project, before its first message.
        conversations.new_chat(project_id=project.id)
        await wait_until(lambda: session.chat.conversation_id is None)
        assert BECAUSE_OF_PROJECT in badge(window)
        dialog = await open_chat_settings(window)
        assert dialog.local_only_box.isChecked() and not dialog.local_only_box.isEnabled()
        dialog.reject()

    run_in_session(gui_session(profile), scenario)
