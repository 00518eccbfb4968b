"""Regenerate keeps every version, with ‹ n/m › arrows: the whole window over the real
core (real SQLite profile, the real SDK against the scripted server), real widgets."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.message_delegate import (
    EDIT,
    NEXT_VERSION,
    PREVIOUS_VERSION,
    REGENERATE,
)
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def contents(model) -> list[str]:
    return [model.index(row).data(MessageRoles.CONTENT) for row in range(model.rowCount())]


def send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)


async def click_action(view, row: int, action: str) -> None:
    rect = view.action_rect(row, action)
    assert rect is not None, f"no {action} under row {row}"
    # The row is laid out again after a change (a delayed layout): click once it has its
    # new height, as a user would see it.
    await wait_until(lambda: view.action_at(view.action_rect(row, action).center()))
    rect = view.action_rect(row, action)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_regenerate_adds_a_version_and_the_arrows_switch_between_them(qapp, tmp_path, fake_openai):
    answers = iter(["First version.", "Second version."])

    def chat(body):
        if not body.get("stream"):
            return fake_model(body)  # the processors learning from the message
        return Reply(text=next(answers))

    fake_openai.responder = chat

    async def scenario(session: AppController):
        window = session.window
        view, messages = window.chat_view, window.messages_model
        send(window, "Tell me a story.")
        await wait_until(lambda: contents(messages) == ["Tell me a story.", "First version."])
        await wait_until(lambda: not window.composer.busy)
        assert view.action_rect(1, PREVIOUS_VERSION) is None  # one version: no arrows
        await click_action(view, 1, REGENERATE)
        await wait_until(lambda: contents(messages) == ["Tell me a story.", "Second version."])
        await wait_until(lambda: not window.composer.busy)
        assert messages.message_at(1).version_number == 2
        assert len(messages.message_at(1).versions) == 2
        assert view.action_rect(1, NEXT_VERSION) is None  # the newest: nothing after it
        await click_action(view, 1, PREVIOUS_VERSION)
        await wait_until(lambda: contents(messages) == ["Tell me a story.", "First version."])
        assert messages.message_at(1).version_number == 1
        await click_action(view, 1, NEXT_VERSION)
        await wait_until(lambda: contents(messages) == ["Tell me a story.", "Second version."])

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)


def test_edit_on_an_earlier_message_branches_and_the_arrows_go_back(qapp, tmp_path, fake_openai):
    answers = iter(["Answer one.", "Answer two.", "Branch answer."])

    def chat(body):
        if not body.get("stream"):
            return fake_model(body)
        return Reply(text=next(answers))

    fake_openai.responder = chat

    async def scenario(session: AppController):
        window = session.window
        view, messages, composer = window.chat_view, window.messages_model, window.composer
        send(window, "First question.")
        await wait_until(lambda: contents(messages)[-1:] == ["Answer one."])
        await wait_until(lambda: not composer.busy)
        send(window, "Second question.")
        await wait_until(lambda: contents(messages)[-1:] == ["Answer two."])
        await wait_until(lambda: not composer.busy)
        await click_action(view, 0, EDIT)
        assert composer.text() == "First question."
        assert composer.editing_row.isVisibleTo(composer)
        composer.input.setPlainText("First question, edited.")
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: contents(messages) == ["First question, edited.", "Branch answer."]
        )
        await wait_until(lambda: not composer.busy)
        assert composer.text() == "" and composer.editing_message_id is None
        assert not composer.editing_row.isVisibleTo(composer)
        assert messages.message_at(0).version_number == 2
        await click_action(view, 0, PREVIOUS_VERSION)
        await wait_until(
            lambda: (
                contents(messages)
                == ["First question.", "Answer one.", "Second question.", "Answer two."]
            )
        )
        await click_action(view, 0, NEXT_VERSION)
        await wait_until(
            lambda: contents(messages) == ["First question, edited.", "Branch answer."]
        )

    run_in_session(gui_session(configure_profile(tmp_path / "profile", fake_openai)), scenario)
    branch_prompt = [r for r in fake_openai.chat_requests() if r.json.get("stream")][2]
    text = "\n".join(str(m.get("content", "")) for m in branch_prompt.json["messages"])
    assert "Second question" not in text and "Answer two" not in text


def test_cancel_leaves_editing_and_sending_adds_a_new_message(qtbot, qapp):
    from acai_desktop.ui.widgets.composer import Composer

    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    composer.begin_edit(7, "old text")
    with qtbot.waitSignal(composer.edit_send_requested) as edited:
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
    assert edited.args == [7, "old text"]
    QTest.mouseClick(composer.cancel_edit_button, Qt.MouseButton.LeftButton)
    assert composer.editing_message_id is None and not composer.editing_row.isVisible()
    with qtbot.waitSignal(composer.send_requested) as sent:
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
    assert sent.args == ["old text"]


def test_showing_another_chat_ends_an_edit(qtbot, qapp):
    from acai_desktop.core.records.conversations import Message, MessageStatus
    from tests.support.gui import shown_main_window

    window = shown_main_window(qtbot, qapp, size=(1000, 700))
    at = "2026-01-01T00:00:00+00:00"
    question = Message(1, 1, "user", "Question", MessageStatus.COMPLETE, at)
    window.show_conversation(1, "One", [question])
    window.chat_view.edit_requested.emit(1)
    assert window.composer.editing_message_id == 1
    window.show_conversation(1, "One", [question])  # the same chat again: still editing
    assert window.composer.editing_message_id == 1
    window.show_conversation(2, "Two", [])
    assert window.composer.editing_message_id is None
