"""Attachments in the composer, over the real core: a real SQLite profile in tmp_path,
indexing by the real job runner (embeddings from the scripted server), real widgets
offscreen, and the prompts the scripted server received."""

from __future__ import annotations

import inspect
import os
import sqlite3
from inspect import CORO_SUSPENDED
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from acai_desktop.core.documents.prompt_block import EVIDENCE_BLOCK_START, EVIDENCE_PREAMBLE
from acai_desktop.core.store.documents import INDEX_JOB
from acai_desktop.core.store.jobs import pause_job_kind, resume_job_kind
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.controllers.base import TURN_TASK
from acai_desktop.ui.models.messages_model import MessageRoles
from benchmarks.pdf_writer import write_text_pdf
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_documents_session import chat_prompts, drop_files, send

BLOCK_OPENING = f"{EVIDENCE_BLOCK_START}\n{EVIDENCE_PREAMBLE}"
NOTES = (
    "Club notes.\n\nThe rowing club meets at Pier 39 every Thursday at seven in the "
    "evening; bring your own life vest.\n"
)
QUESTION = "Where and when does the rowing club meet?"
PASSAGE = "Pier 39 every Thursday"


def attachment_rows(profile) -> list[tuple]:
    with sqlite3.connect(profile.database_path) as db:
        return db.execute(
            "SELECT name, status, attachment, conversation_id, path FROM documents ORDER BY id"
        ).fetchall()


def copies(profile) -> list[Path]:
    folder = profile.attachments_dir
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def chip_states(window) -> dict[str, str]:
    return {chip.document.name: chip.state_text() for chip in window.composer.attachments.chips()}


def test_an_attached_file_is_indexed_first_and_quoted_in_its_chat_only(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    notes = tmp_path / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")

    async def scenario(session: AppController):
        window, assistant = session.window, session.assistant
        composer, messages = window.composer, window.messages_model
        assert session.chat.conversation_id is None  # a new chat: not on disk yet
        # Indexing held back, so the send certainly meets an attachment not indexed yet.
        await assistant._store.run(pause_job_kind, INDEX_JOB)

        # The paperclip opens a file dialog (open(), not exec()); the user picks the file.
        QTest.mouseClick(composer.attach_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(QFileDialog))
        assert dialog.isVisible() and dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
        dialog.filesSelected.emit([str(notes)])
        await wait_until(lambda: chip_states(window) == {"notes.txt": "waiting to be indexed"})
        assert composer.attachments.isVisible()
        # The chat's, not the library's: the Documents tab stays empty.
        assert window.documents_model.rowCount() == 0

        # Sending waits for it, and says so; nothing is written meanwhile.
        send(window, QUESTION)
        await wait_until(lambda: composer.attach_note.isVisible())
        assert composer.busy
        assert "Waiting for “notes.txt” to be indexed" in composer.attach_note.text()
        assert messages.rowCount() == 0 and not chat_prompts(fake_openai)
        await assistant._store.run(resume_job_kind, INDEX_JOB)
        assistant.runner.wake()
        await wait_until(lambda: messages.rowCount() == 2 and not composer.busy)
        assert not composer.attach_note.isVisible()

        # The answer's prompt quotes the file, inside the documents block (data).
        prompt = chat_prompts(fake_openai)[-1]
        assert BLOCK_OPENING in prompt and PASSAGE in prompt
        assert prompt.index(BLOCK_OPENING) < prompt.index(PASSAGE)
        first_chat = session.chat.conversation_id
        assert first_chat is not None
        [(name, status, attachment, conversation_id, path)] = attachment_rows(profile)
        assert (name, status, attachment, conversation_id) == ("notes.txt", "ready", 1, first_chat)
        assert Path(path).parent.parent == profile.attachments_dir  # the app's copy
        await wait_until(lambda: chip_states(window) == {"notes.txt": "ready"})
        # The Documents tab lists it under the library, as this chat's.
        chat_files = window.documents_panel.chat_files
        await wait_until(lambda: "notes.txt" in chat_files.text() and not chat_files.isHidden())
        # The message sent shows the file it was sent with.
        await wait_until(lambda: messages.index(0).data(MessageRoles.ATTACHMENTS) == ("notes.txt",))
        assert messages.index(1).data(MessageRoles.ATTACHMENTS) == ()  # the answer has none

        # Another chat never gets it, though it uses all documents.
        QTest.mouseClick(window.new_chat_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: session.chat.conversation_id is None)
        await wait_until(lambda: not composer.attachments.chips())
        assert chat_files.isHidden()  # another chat: none of its own
        send(window, QUESTION)
        await wait_until(lambda: len(chat_prompts(fake_openai)) == 2 and not composer.busy)
        other = chat_prompts(fake_openai)[-1]
        # No passage of it (the first chat's answer may be recalled as a past message,
        # in the memories block: that is what was said, not the document).
        assert EVIDENCE_BLOCK_START not in other and "</documents>" not in other
        other_chat = session.chat.conversation_id
        assert await assistant.documents.evidence_for(other_chat, QUESTION) == []
        assert await assistant.documents.evidence_for(first_chat, QUESTION)

        # Back in its chat, its chip is there; deleting the chat removes the attachment.
        session.conversations.open(first_chat)
        await wait_until(lambda: chip_states(window) == {"notes.txt": "ready"})
        await wait_until(lambda: messages.index(0).data(MessageRoles.ATTACHMENTS) == ("notes.txt",))
        await assistant.conversations.delete(first_chat)
        assert attachment_rows(profile) == [] and copies(profile) == []
        assert notes.read_text(encoding="utf-8") == NOTES  # the user's file is untouched

    run_in_session(gui_session(profile), scenario)


def test_files_dropped_on_the_chat_are_attached_and_refusals_said_at_once(
    qapp, tmp_path, fake_openai
):
    from pypdf import PdfWriter

    profile = configure_profile(tmp_path / "profile", fake_openai)
    files = tmp_path / "files"
    files.mkdir()
    notes = files / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    binary = files / "blob.txt"
    binary.write_bytes(b"text\x00\x01\x02 more")
    plain = write_text_pdf(files / "plain.pdf", [["Secret text."]])
    writer = PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password="hunter2", algorithm="RC4-128")
    locked = files / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        composer.input.setPlainText("Draft I am still writing")
        # Dropped onto the chat (its empty transcript): the two refused at once.
        drop_files(window.transcript_empty_state, [locked, binary])
        await wait_until(lambda: composer.attach_note.isVisible())
        note = composer.attach_note.text()
        assert note.startswith("Not attached — ")
        assert "locked.pdf is encrypted (password-protected)" in note
        assert "blob.txt looks like a binary file" in note
        assert composer.attach_note.textFormat() == Qt.TextFormat.PlainText
        assert not composer.attachments.chips()
        assert attachment_rows(profile) == [] and copies(profile) == []
        assert not fake_openai.chat_requests() and not fake_openai.embedding_requests()
        assert composer.text() == "Draft I am still writing"

        # A readable file dropped onto the transcript is attached to the chat.
        drop_files(window.chat_view.viewport(), [notes])
        await wait_until(lambda: chip_states(window) == {"notes.txt": "ready"})
        assert not composer.attach_note.isVisible()
        assert composer.text() == "Draft I am still writing"  # no path typed in
        assert [row[:3] for row in attachment_rows(profile)] == [("notes.txt", "ready", 1)]

    run_in_session(gui_session(profile), scenario)


def test_a_paste_over_the_budget_becomes_an_attachment(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai, context_budget_tokens=2000)
    paste = "\n".join(
        f"Line {n}: the quarterly report says revenue grew in region {n % 7}." for n in range(800)
    )
    paste += "\nLine 800: the harbour office closes at noon on Fridays.\n"

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        mime = QMimeData()
        mime.setText(paste)
        composer.input.insertFromMimeData(mime)  # what Ctrl+V and a text drop do
        assert composer.text() == ""  # no huge bubble in the making
        name = "Pasted text, 802 lines: “Line 0: the quarterly report says…”"
        await wait_until(lambda: chip_states(window) == {name: "ready"})
        assert f"is attached to this chat as “{name}”" in composer.attach_note.text()
        # A short paste still goes into the message.
        short = QMimeData()
        short.setText("When does the harbour office close on Fridays?")
        composer.input.insertFromMimeData(short)
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.messages_model.rowCount() == 2 and not composer.busy)
        prompt = chat_prompts(fake_openai)[-1]
        assert BLOCK_OPENING in prompt and "closes at noon on Fridays" in prompt
        assert prompt.endswith("When does the harbour office close on Fridays?")
        assert len(prompt) < len(paste)  # passages, not the whole paste
        assert window.messages_model.index(0).data() != paste

    run_in_session(gui_session(profile), scenario)


def test_an_attachment_that_fails_keeps_the_message_and_its_chip_removes_it(
    qapp, tmp_path, fake_openai
):
    from pypdf import PdfWriter

    profile = configure_profile(tmp_path / "profile", fake_openai)
    scanned = tmp_path / "scanned.pdf"  # opens, but has no text to index
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    with scanned.open("wb") as handle:
        writer.write(handle)

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        window.composer.files_attached.emit([str(scanned)])  # as a paste of the file
        await wait_until(lambda: chip_states(window) == {"scanned.pdf": "failed"})
        send(window, "What does the scan say?")
        await wait_until(
            lambda: "Not sent: scanned.pdf could not be attached" in (composer.attach_note.text())
        )
        await wait_until(lambda: not composer.busy)
        assert "has no text to index" in composer.attach_note.text()
        assert composer.text() == "What does the scan say?"  # kept, to send again
        assert window.messages_model.rowCount() == 0 and not chat_prompts(fake_openai)

        # The chip's × removes the attachment, its row and its copy.
        [chip] = composer.attachments.chips()
        QTest.mouseClick(chip.remove_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not composer.attachments.chips())
        await wait_until(lambda: attachment_rows(profile) == [])
        assert copies(profile) == []
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.messages_model.rowCount() == 2 and not composer.busy)

    run_in_session(gui_session(profile), scenario)


def test_stop_while_a_send_waits_for_indexing_sends_nothing_and_keeps_the_message(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    notes = tmp_path / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")

    async def scenario(session: AppController):
        window, assistant = session.window, session.assistant
        composer = window.composer
        await assistant._store.run(pause_job_kind, INDEX_JOB)
        composer.files_attached.emit([str(notes)])
        await wait_until(lambda: chip_states(window) == {"notes.txt": "waiting to be indexed"})
        # Stop at once (the turn has not run yet), then Stop while it waits.
        for at_once in (True, False):
            send(window, QUESTION)
            assert "Waiting for “notes.txt”" in composer.attach_note.text()
            if not at_once:
                turn = session.services.tasks.get(TURN_TASK).get_coro()
                await wait_until(lambda c=turn: inspect.getcoroutinestate(c) == CORO_SUSPENDED)
            QTest.mouseClick(composer.stop_button, Qt.MouseButton.LeftButton)
            await wait_until(lambda: not composer.busy)
            assert composer.text() == QUESTION and not composer.attach_note.isVisible()
            assert window.messages_model.rowCount() == 0 and not chat_prompts(fake_openai)
            assert await assistant.conversations.list() == []  # no chat was started
            assert chip_states(window) == {"notes.txt": "waiting to be indexed"}  # held

        await assistant._store.run(resume_job_kind, INDEX_JOB)
        assistant.runner.wake()
        await wait_until(lambda: chip_states(window) == {"notes.txt": "ready"})
        QTest.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.messages_model.rowCount() == 2 and not composer.busy)
        assert PASSAGE in chat_prompts(fake_openai)[-1]

    run_in_session(gui_session(profile), scenario)


@pytest.mark.timeout(120)  # an opened pipe would block the attach, and quitting, for ever
def test_a_pipe_or_a_looping_link_dropped_on_the_chat_is_refused_at_once(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    files = tmp_path / "files"
    files.mkdir()
    os.mkfifo(files / "x.txt")
    os.symlink("loop.md", files / "loop.md")

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        drop_files(window.chat_view.viewport(), [files / "x.txt", files / "loop.md"])
        await wait_until(lambda: composer.attach_note.isVisible())
        return composer.attach_note.text(), composer.attachments.chips()

    # The session closes the window when the scenario ends: quitting is not held up.
    note, chips = run_in_session(gui_session(profile), scenario)
    assert note.startswith("Not attached — x.txt is a named pipe (FIFO), not a regular file")
    assert "loop.md is a symbolic link that loops" in note
    assert chips == [] and attachment_rows(profile) == [] and copies(profile) == []
