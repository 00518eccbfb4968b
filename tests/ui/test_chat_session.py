"""The whole window over the real core: real SQLite profile in tmp_path, the real SDK
against the scripted server, the rule-based fake model, real widgets offscreen."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_view import RETRY, SOURCES
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until


def rows(model, role):
    return [model.index(row).data(role) for row in range(model.rowCount())]


def send(window, text: str) -> None:
    window.composer.input.setPlainText(text)
    QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)


def click_action(view, row: int, action: str) -> None:
    rect = view.action_rect(row, action)
    assert rect is not None, f"no {action} under row {row}"
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def session_for(tmp_path, server) -> AppController:
    return gui_session(configure_profile(tmp_path / "profile", server))


def test_send_streams_the_answer_and_the_panel_shows_the_extracted_fact(
    qapp, tmp_path, fake_openai
):
    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        send(window, "I prefer green tea in the morning.")
        await wait_until(lambda: messages.rowCount() == 2)
        assert rows(messages, MessageRoles.ROLE) == ["user", "assistant"]
        assert window.composer.text() == ""  # cleared once committed
        assert window.transcript_area.currentWidget() is window.chat_view
        await wait_until(lambda: messages.index(1).data(MessageRoles.STATUS) == "complete")
        assert messages.index(1).data(MessageRoles.CONTENT)
        await wait_until(lambda: not window.composer.busy)  # the turn also records sources
        # The background processors extract the fact; the panel hears it live.
        await wait_until(
            lambda: (
                "The user prefers green tea in the morning"
                in rows(window.memories_model, MemoryRoles.CONTENT)
            )
        )
        # The conversation is listed, titled by its first message.
        await wait_until(lambda: window.conversations_model.rowCount() == 1)
        assert window.conversations_model.index(0).data().startswith("I prefer green tea")
        assert window.conversation_title.text().startswith("I prefer green tea")

        # A second question uses that memory; its provenance names it.
        send(window, "What do I like to drink in the morning?")
        await wait_until(
            lambda: (
                messages.rowCount() == 4
                and messages.index(3).data(MessageRoles.SOURCES_COUNT) is not None
            )
        )
        assert messages.index(3).data(MessageRoles.SOURCES_COUNT) >= 1
        assert "green tea" in messages.index(3).data(MessageRoles.CONTENT)
        window.chat_view.scrollToBottom()
        await asyncio.sleep(0)
        click_action(window.chat_view, 3, SOURCES)
        dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: "green tea" in dialog.browser.toPlainText())
        text = dialog.browser.toPlainText()
        assert "#1" in text and " match" in text
        dialog.close()
        return session.profile

    profile = run_in_session(session_for(tmp_path, fake_openai), scenario)
    with sqlite3.connect(profile.database_path) as db:
        roles = db.execute("select role, status from messages order by id").fetchall()
        assert roles == [("user", "complete"), ("assistant", "complete")] * 2
        used = db.execute(
            "select m.content from answer_sources s join memories m on m.id = s.memory_id"
        ).fetchall()
        assert ("The user prefers green tea in the morning",) in used


def test_stop_mid_stream_ends_the_answer_as_stopped(qapp, tmp_path, fake_openai):
    fake_openai.script(Reply(text="one two three four five six seven eight nine", chunk_delay=0.3))

    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        send(window, "Count slowly please")
        await wait_until(
            lambda: messages.rowCount() == 2 and messages.index(1).data(MessageRoles.CONTENT)
        )
        assert window.composer.stop_button.isVisible()
        QTest.mouseClick(window.composer.stop_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: messages.index(1).data(MessageRoles.STATUS) == "stopped")
        await wait_until(lambda: not window.composer.busy)
        assert window.composer.send_button.isVisible()
        assert window.chat_view.action_rect(1, RETRY) is not None
        return session.profile

    profile = run_in_session(session_for(tmp_path, fake_openai), scenario)
    with sqlite3.connect(profile.database_path) as db:
        [(status, content)] = db.execute(
            "select status, content from messages where role = 'assistant'"
        ).fetchall()
    assert status == MessageStatus.STOPPED
    assert content and content != "one two three four five six seven eight nine"


def test_model_failure_shows_the_error_and_retry_answers(qapp, tmp_path, fake_openai):
    # The client retries a failed stream once: two 500s make one failed turn. Only the
    # streamed chat calls fail; the processors queued for the saved message (their calls
    # are not streamed) get the fake model's answers.
    streamed = []

    def flaky_chat(body):
        if not body.get("stream"):
            return fake_model(body)
        streamed.append(body)
        if len(streamed) <= 2:
            return Reply(status=500, retry_after=0.01)
        return Reply(text="Back again.")

    fake_openai.responder = flaky_chat

    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        send(window, "Are you there?")
        await wait_until(lambda: messages.rowCount() == 2)
        await wait_until(lambda: messages.index(1).data(MessageRoles.ERROR))
        assert messages.index(1).data(MessageRoles.STATUS) == "error"
        assert "server" in messages.index(1).data(MessageRoles.ERROR).lower()
        await wait_until(lambda: not window.composer.busy)  # the turn has ended
        click_action(window.chat_view, 1, RETRY)
        await wait_until(lambda: messages.index(1).data(MessageRoles.STATUS) == "complete")
        assert messages.index(1).data(MessageRoles.CONTENT) == "Back again."
        assert messages.index(1).data(MessageRoles.ERROR) is None
        assert window.chat_view.action_rect(1, RETRY) is None

    run_in_session(session_for(tmp_path, fake_openai), scenario)


def test_an_empty_or_oversized_message_is_refused_and_kept(qapp, tmp_path, fake_openai):
    from acai_desktop.core.turns.turn_log import MAX_MESSAGE_CHARS

    async def scenario(session: AppController):
        window = session.window
        too_long = "x" * (MAX_MESSAGE_CHARS + 1)
        send(window, too_long)
        await wait_until(lambda: "Not sent" in window.statusBar().currentMessage())
        await wait_until(lambda: not window.composer.busy)
        assert window.composer.text() == too_long
        assert window.messages_model.rowCount() == 0
        assert window.conversations_model.rowCount() == 0

    run_in_session(session_for(tmp_path, fake_openai), scenario)
    assert fake_openai.chat_requests() == []


def test_opening_an_old_profile_shows_the_database_update_in_the_status_bar(
    qapp, tmp_path, fake_openai, monkeypatch
):
    from acai_desktop.ui.main_window import MainWindow
    from tests.support.old_profile import old_profile

    shown: list[str] = []
    original = MainWindow.show_status

    def recording(window, text: str, timeout_ms: int = 0) -> None:
        shown.append(text)
        original(window, text, timeout_ms)

    monkeypatch.setattr(MainWindow, "show_status", recording)
    old_profile(tmp_path / "profile")
    session = session_for(tmp_path, fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: any(t.startswith("Database updated in") for t in shown))
        assert session.window.conversations_model.rowCount() == 10

    run_in_session(session, scenario)
    assert any(t.startswith("Updating the database ") for t in shown), shown


def test_the_status_bar_counts_down_to_the_first_words_deadline(qapp, tmp_path, fake_openai):
    """Issue 39: while the model has said nothing yet, the status bar shows the time left
    for its first words (a model on this computer: 120 s); the words end it."""
    release = threading.Event()

    def slow_to_start(body: dict) -> Reply:
        if body.get("stream"):
            release.wait(60)
            return Reply(text="Hello there.")
        return fake_model(body)

    fake_openai.responder = slow_to_start

    async def scenario(session: AppController):
        window = session.window
        status = window.statusBar()
        send(window, "Hi")
        await wait_until(lambda: "first words" in status.currentMessage())
        shown = status.currentMessage()
        release.set()
        await wait_until(lambda: not window.composer.busy)
        return shown, status.currentMessage()

    try:
        shown, after = run_in_session(session_for(tmp_path, fake_openai), scenario)
    finally:
        release.set()
    prefix, left = shown.rsplit(" ", 3)[0], shown.split()[-3]
    assert prefix == "Waiting for the model's first words…"
    assert 0 < int(left) <= 120 and shown.endswith(" s left")
    assert "first words" not in after
