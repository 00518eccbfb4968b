"""Inline citations over the real core: the prompt numbers the turn's passages and
recalled messages and asks for [n]; the scripted server answers citing [1] (real) and
[9] (invented); the chat shows a chip after the paragraph that cited [1] and nothing of
[9]; a chip opens the passage or the chat at the recalled message; the chips come back
when the profile is opened again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QToolTip

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.chat_view import COPY, COPY_TEXT, SOURCES
from acai_desktop.ui.widgets.document_dialogs import PassageDialog
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import Reply
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.memory import shared_embedder
from tests.ui.test_chat_session import click_action, send
from tests.ui.test_recall_session import TOLD, _earlier_chat

HANDBOOK = (
    "# Team handbook\n\n## Deployment\n\nDeployments happen on Tuesdays after the standup.\n\n"
    "## Holidays\n\nBook holidays two weeks ahead in the HR portal.\n"
)
QUESTION = "When do deployments happen according to the handbook?"
CITING_ANSWER = (
    "Deployments happen on Tuesdays [1], after the standup.\n\n"
    "They are never on Fridays [9].\n\n"
    "Ask the team lead if unsure."
)
#: What the chat shows of the paragraphs: the chip at the end of the first, [9] gone.
FIRST_PARAGRAPH = "Deployments happen on Tuesdays, after the standup. [1]"
SECOND_PARAGRAPH = "They are never on Fridays."
CHIP = "acai-cite:"


def citing_model(body: dict) -> Reply:
    """The scripted model, answering every chat turn with one real and one invented
    citation."""
    if call_kind(body) == "chat":
        return Reply(text=CITING_ANSWER)
    return fake_model(body)


def chat_turns(server) -> list[list[dict]]:
    return [r.json["messages"] for r in server.chat_requests() if call_kind(r.json) == "chat"]


def chips(document) -> list[tuple[str, str, str]]:
    """Each link of a rendered message: (its paragraph's text, its text, its href)."""
    found = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().isAnchor():
                found.append((block.text(), fragment.text(), fragment.charFormat().anchorHref()))
            fragments += 1
        block = block.next()
    return found


def paragraphs(document) -> list[str]:
    texts, block = [], document.begin()
    while block.isValid():
        if block.text().strip():
            texts.append(block.text())
        block = block.next()
    return texts


def chip_point(view, row: int, href: str) -> QPoint:
    """Where the chip linking to ``href`` is drawn in ``row``, in viewport coordinates."""
    index = view.model().index(row, 0)
    layout = view.delegate.bubble_layout(view.visualRect(index), index)
    document = view.delegate.documents.document(index, layout.text_width)
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                middle = fragment.position() + fragment.length() // 2 - block.position()
                line = block.layout().lineForTextPosition(middle)
                top = document.documentLayout().blockBoundingRect(block).top()
                x = line.cursorToX(middle)[0]
                y = top + line.y() + line.height() / 2
                return layout.text.topLeft() + QPoint(round(x), round(y))
            fragments += 1
        block = block.next()
    raise AssertionError(f"no chip {href} in row {row}")


def click_chip(view, row: int, href: str) -> None:
    view.scrollTo(view.model().index(row, 0))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=chip_point(view, row, href))


async def seed_handbook(profile, handbook: Path) -> None:
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
    )
    try:
        report = await assistant.documents.add([handbook])
        await assistant.documents.index_now(report.job_ids)
    finally:
        await assistant.close()


def handbook_profile(tmp_path, server):
    """A profile with the handbook indexed, whose model cites [1] and [9]."""
    server.responder = citing_model
    profile = configure_profile(tmp_path / "profile", server)
    handbook = tmp_path / "handbook.md"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    asyncio.run(seed_handbook(profile, handbook))
    return profile


async def ask_the_handbook(session: AppController) -> int:
    """Ask about the handbook in the new chat; the answer's id once its chips show."""
    window = session.window
    messages = window.messages_model
    send(window, QUESTION)
    await wait_until(lambda: messages.rowCount() == 2 and not window.composer.busy)
    await wait_until(lambda: messages.index(1).data(MessageRoles.STATUS) == "complete")
    return messages.index(1).data(MessageRoles.ID)


# Showing a tooltip offscreen (the chip's) makes the platform plugin say these.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|propagateSizeHints)")
def test_a_chip_follows_the_paragraph_that_cited_and_an_invented_number_is_dropped(
    qapp, tmp_path, fake_openai
):
    profile = handbook_profile(tmp_path, fake_openai)

    async def scenario(session: AppController):
        view = session.window.chat_view
        await ask_the_handbook(session)
        # The prompt: the instructions ask for [n]; the turn's data numbers the passage.
        turn = chat_turns(fake_openai)[-1]
        assert "like [1]" in turn[0]["content"]
        assert (
            '- [1] "handbook.md", section "Team handbook > Deployment": ' in (turn[-1]["content"])
        )

        # The chip follows the paragraph that cited [1]; [9] is gone, chip and text.
        await wait_until(lambda: chips(view.document_at(1)))
        document = view.document_at(1)
        assert chips(document) == [(FIRST_PARAGRAPH, "[1]", CHIP + "1")]
        assert paragraphs(document) == [
            FIRST_PARAGRAPH,
            SECOND_PARAGRAPH,
            "Ask the team lead if unsure.",
        ]
        assert "[9]" not in document.toPlainText()
        session.window.grab().save("/tmp/acai-citations.png")

        # Its tooltip names the passage, as plain text.
        point = chip_point(view, 1, CHIP + "1")
        view.close_reader()
        QGuiApplication.sendEvent(
            view.viewport(),
            QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)),
        )
        assert QToolTip.text().startswith('<p style="white-space:pre-wrap">handbook.md: ')
        assert "Tuesdays" in QToolTip.text()
        QToolTip.hideText()
        # The same over the reader (open over a message for selecting its text).
        reader = view.open_reader(session.window.messages_model.index(1))
        found = reader.document().find("[1]")
        at = reader.cursorRect(found).center() - QPoint(4, 0)
        assert reader.anchorAt(at) == CHIP + "1"
        QGuiApplication.sendEvent(
            reader.viewport(),
            QHelpEvent(QEvent.Type.ToolTip, at, reader.viewport().mapToGlobal(at)),
        )
        assert QToolTip.text().startswith('<p style="white-space:pre-wrap">handbook.md: ')
        QToolTip.hideText()
        view.close_reader()

        # Copy keeps the real citation and says what it is; the invented one is gone.
        click_action(view, 1, COPY)
        copied = QGuiApplication.clipboard().text()
        assert copied.startswith(FIRST_PARAGRAPH + "\n\n" + SECOND_PARAGRAPH + "\n\n")
        assert copied.endswith("Sources:\n\n[1] handbook.md\n") and "[9]" not in copied
        click_action(view, 1, COPY_TEXT)
        assert "[1] handbook.md" in QGuiApplication.clipboard().text()

    run_in_session(gui_session(profile), scenario)


def test_a_chip_opens_its_passage_and_comes_back_after_a_restart(qapp, tmp_path, fake_openai):
    profile = handbook_profile(tmp_path, fake_openai)
    answer_ids = []

    async def ask(session: AppController):
        window, view = session.window, session.window.chat_view
        answer_ids.append(await ask_the_handbook(session))
        await wait_until(lambda: chips(view.document_at(1)))
        # A click on the chip opens the passage, as Sources does.
        click_chip(view, 1, CHIP + "1")
        passage = await wait_until(lambda: window.findChild(PassageDialog))
        await wait_until(lambda: "Tuesdays" in passage.text.toPlainText())
        assert passage.where.text() == "handbook.md"
        passage.close()

    run_in_session(gui_session(profile), ask)

    async def reopened(session: AppController):
        # A new start: the chat opens with its answer, and the same chip comes back.
        messages, view = session.window.messages_model, session.window.chat_view
        await wait_until(lambda: messages.rowCount() == 2)
        assert messages.index(1).data(MessageRoles.ID) == answer_ids[0]
        await wait_until(lambda: chips(view.document_at(1)))
        assert chips(view.document_at(1)) == [(FIRST_PARAGRAPH, "[1]", CHIP + "1")]
        assert "[9]" not in view.document_at(1).toPlainText()
        click_chip(view, 1, CHIP + "1")
        passage = await wait_until(lambda: session.window.findChild(PassageDialog))
        await wait_until(lambda: "Tuesdays" in passage.text.toPlainText())

    run_in_session(gui_session(profile), reopened)


def test_a_recalled_message_is_cited_and_its_chip_opens_the_chat_there(qapp, tmp_path, fake_openai):
    fake_openai.responder = citing_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def seed():
        assistant = await open_assistant(
            profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
        )
        try:
            return await _earlier_chat(assistant._store)
        finally:
            await assistant.close()

    chat_id, told_id = asyncio.run(seed())

    async def scenario(session: AppController):
        window = session.window
        view, messages = window.chat_view, window.messages_model
        await wait_until(lambda: messages.conversation_id == chat_id)
        session.conversations.new_chat()
        await wait_until(lambda: messages.conversation_id is None)
        send(window, "Which Gazelle did I buy in Utrecht?")
        await wait_until(lambda: messages.rowCount() == 2 and not window.composer.busy)
        # The recalled message is number 1 (no passage came first).
        data = chat_turns(fake_openai)[-1][-1]["content"]
        assert f'- [1] [{told_date(data)}, chat "Bikes and errands"] You: {TOLD}' in data
        await wait_until(lambda: chips(view.document_at(1)))
        assert chips(view.document_at(1)) == [(FIRST_PARAGRAPH, "[1]", CHIP + "1")]
        assert "[9]" not in view.document_at(1).toPlainText()

        # Sources gives the message the chip's number (its rank among memories aside).
        click_action(view, 1, SOURCES)
        dialog = await wait_until(lambda: window.findChild(ProvenanceDialog))
        await wait_until(lambda: "from the chat" in dialog.browser.toPlainText())
        assert f"[1] You: {TOLD}" in dialog.browser.toPlainText()
        dialog.close()

        # The chip opens the earlier chat at the message, highlighted.
        click_chip(view, 1, CHIP + "1")
        await wait_until(lambda: messages.conversation_id == chat_id)
        await wait_until(lambda: view.highlighted_message_id == told_id)

    run_in_session(gui_session(profile), scenario)


def told_date(data: str) -> str:
    """The date the prompt gives the recalled message (it was written today)."""
    start = data.index("- [1] [") + len("- [1] [")
    return data[start : start + 10]
