"""Sources and Details a person understands, over the real window and core: a strength
in words with the score in a tooltip, the reason ("mentions peanuts"), a memory that opens
in the memory panel, and "Came from" that opens the chat at the message, highlighted."""

from __future__ import annotations

import asyncio
import re

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_view import SOURCES
from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog, ProvenanceDialog
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_chat_session import click_action, send


def click_text(browser, text: str) -> None:
    """Click inside ``text`` in a text browser, as a user does."""
    found = browser.document().find(text)
    assert not found.isNull(), f"{text!r} is not shown"
    QTest.mouseClick(
        browser.viewport(),
        Qt.MouseButton.LeftButton,
        pos=browser.cursorRect(found).center() - QPoint(4, 0),
    )


def tooltip_at(browser, text: str) -> str:
    found = browser.document().find(text)
    return found.charFormat().toolTip()


async def ask_and_wait(window, question: str) -> None:
    """Send ``question`` and wait until its answer is done and has its sources."""
    messages = window.messages_model
    send(window, question)
    await wait_until(
        lambda: (
            messages.rowCount() == 2
            and messages.index(1).data(MessageRoles.SOURCES_COUNT) is not None
        )
    )
    await wait_until(lambda: not window.composer.busy)


async def open_sources(window) -> ProvenanceDialog:
    """Click *Sources* under the answer, as a user does."""
    window.chat_view.scrollToBottom()
    await asyncio.sleep(0)
    click_action(window.chat_view, 1, SOURCES)
    return await wait_until(lambda: window.findChild(ProvenanceDialog))


def test_sources_say_how_strong_and_why_and_open_the_memory_in_the_panel(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, panel = session.window, session.window.memory_panel
        peanuts = await session.assistant.memories.remember(
            "The user is allergic to peanuts", category="Health", explicit=True
        )
        await session.assistant.memories.remember("The user lives in Oslo", explicit=True)
        await ask_and_wait(window, "Am I allergic to peanuts?")
        # The panel shows something else: a search the memory doesn't match.
        panel.search.setText("Oslo")
        panel.apply_query()
        await wait_until(lambda: window.memories_model.query.text == "Oslo")
        await wait_until(lambda: window.memories_model.settled)
        assert window.memories_model.row_of(peanuts.id) is None

        dialog = await open_sources(window)
        await wait_until(lambda: "peanuts" in dialog.browser.toPlainText())
        text = dialog.browser.toPlainText()
        assert "mentions allergic, peanuts" in text
        strength = next(s for s in ("strong match", "some match") if s in text)
        # The score itself (a fact holding every word of a first-person question scores
        # above 1: its words' full share, its meaning, and the asker's lift).
        assert re.match(r"score \d+\.\d\d ", tooltip_at(dialog.browser, strength))
        assert "score" not in text  # the number is for the tooltip

        click_text(dialog.browser, "The user is allergic to peanuts")
        await wait_until(lambda: panel.selected_memory_id() == peanuts.id)
        assert panel.search.text() == "" and window.side_tabs.currentIndex() == 0
        assert window.side_tabs.isVisible()
        dialog.close()

    run_in_session(gui_session(profile), scenario)


def test_a_pinned_memory_the_question_does_not_match_says_why_it_is_there(
    qapp, tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, memories = session.window, session.assistant.memories
        name = await memories.remember("The user's name is Ana", explicit=True)
        await memories.pin(name.id)
        await ask_and_wait(window, "How do I reverse a list in Python?")
        dialog = await open_sources(window)
        await wait_until(lambda: "Ana" in dialog.browser.toPlainText())
        text = dialog.browser.toPlainText()
        assert "pinned: in every answer's prompt" in text
        assert " match" not in text  # nothing matched: no strength to tell
        dialog.close()

    run_in_session(gui_session(profile), scenario)


def test_came_from_opens_the_chat_at_the_message_highlighted(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        messages = window.messages_model
        send(window, "I prefer green tea in the morning.")
        await wait_until(lambda: window.memories_model.rowCount() == 1)
        await wait_until(lambda: not window.composer.busy)
        told_in, told = messages.conversation_id, messages.index(0).data(MessageRoles.ID)
        session.conversations.new_chat()
        await wait_until(lambda: messages.conversation_id is None)

        memory_id = window.memories_model.item_at(0).id
        assert panel.select_memory(memory_id)
        QTest.mouseClick(panel.actions_bar.details_button, Qt.MouseButton.LeftButton)
        details = await wait_until(lambda: window.findChild(MemoryDetailsDialog))
        await wait_until(lambda: "open in the chat" in details.browser.toPlainText())
        click_text(details.browser, "open in the chat")
        await wait_until(lambda: messages.conversation_id == told_in)
        await wait_until(lambda: window.chat_view.highlighted_message_id == told)
        await wait_until(lambda: window.findChild(MemoryDetailsDialog) is None)

    run_in_session(gui_session(profile), scenario)
