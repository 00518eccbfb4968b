"""A chat's attachments in the core, on a real profile and the scripted server: evidence
for their own chat only (whatever its scope), out of the library, refused at once when
unreadable, held by a new chat until it starts, dropped at the next start when never
sent, and gone with their chat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acai_desktop.core.documents.attachments import pasted_name
from acai_desktop.core.documents.model import (
    AttachmentFailed,
    DocumentReadError,
    DocumentScope,
    ScopeMode,
)
from acai_desktop.core.documents.readers import check_readable
from acai_desktop.core.store.documents import INDEX_JOB
from acai_desktop.core.store.jobs import pause_job_kind, resume_job_kind
from tests.support.aio import run
from tests.support.assistant import running_assistant

LIBRARY = "The office kitchen is cleaned every Monday by the facilities team.\n"
MINE = "Project Heron ships its beta to the pilot customers on the ninth of March.\n"
THEIRS = "Project Heron was renamed Kestrel after the legal review in April.\n"
QUESTION = "What happens with Project Heron and the office kitchen?"


def names(passages) -> set[str]:
    return {hit.passage.document_name for hit in passages}


def test_an_attachment_is_evidence_for_its_chat_only_whatever_the_scope(tmp_path, fake_openai):
    files = tmp_path / "files"
    files.mkdir()
    (files / "kitchen.txt").write_text(LIBRARY, encoding="utf-8")
    (files / "mine.txt").write_text(MINE, encoding="utf-8")
    (files / "theirs.txt").write_text(THEIRS, encoding="utf-8")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            documents, attachments = assistant.documents, assistant.attachments
            report = await documents.add([files / "kitchen.txt"])
            chat = await assistant.conversations.create()
            other = await assistant.conversations.create()
            mine = await attachments.attach_file(files / "mine.txt", chat.id)
            theirs = await attachments.attach_file(files / "theirs.txt", other.id)
            await assistant.runner.wait_for(report.job_ids, timeout=60)
            await attachments.wait_ready([mine.id, theirs.id])
            seen = {}
            seen["all"] = names(await documents.evidence_for(chat.id, QUESTION))
            await documents.set_scope(chat.id, DocumentScope(ScopeMode.NONE))
            seen["none"] = names(await documents.evidence_for(chat.id, QUESTION))
            await documents.set_scope(
                chat.id, DocumentScope(ScopeMode.SOME, (report.queued[0].id,))
            )
            seen["some"] = names(await documents.evidence_for(chat.id, QUESTION))
            seen["library"] = [d.name for d in await documents.list()]
            seen["chat"] = [d.name for d in await attachments.of_conversation(chat.id)]
            # Deleting the other chat deletes its attachment and its copy.
            copy = theirs.path
            await assistant.conversations.delete(other.id)
            seen["after delete"] = names(await documents.search(QUESTION, 5))
            seen["copy left"] = (tmp_path / copy).exists()
            return seen

    seen = run(scenario())
    assert seen["all"] == {"kitchen.txt", "mine.txt"}  # never the other chat's
    assert seen["none"] == {"mine.txt"}  # attached to ask about it: always in
    assert seen["some"] == {"kitchen.txt", "mine.txt"}
    assert seen["library"] == ["kitchen.txt"] and seen["chat"] == ["mine.txt"]
    assert "theirs.txt" not in seen["after delete"] and not seen["copy left"]


def test_a_new_chats_attachment_is_held_then_bound_or_dropped_at_the_next_start(
    tmp_path, fake_openai
):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe spare key is under the blue flowerpot.\n", encoding="utf-8")

    async def first_run():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            attachments = assistant.attachments
            sent = await attachments.attach_file(notes, None)
            result = await assistant.orchestrator.send(
                None, "Where is the spare key?", attachment_ids=[sent.id]
            )
            bound = await attachments.of_conversation(result.conversation_id)
            held = await attachments.attach_file(notes, None)  # never sent
            await attachments.wait_ready([held.id])
            return result, bound, held

    async def second_run():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            return await assistant.attachments.of_conversation(None)

    result, bound, held = run(first_run())
    stray = tmp_path / "profile" / "attachments" / "0123abcd" / "left.txt"  # no document's
    stray.parent.mkdir()
    stray.write_text("copied, then the app died", encoding="utf-8")
    assert [d.name for d in bound] == ["notes.md"]
    assert [e.document_name for e in result.evidence_used] == ["notes.md"]
    assert "blue flowerpot" in result.evidence_used[0].snippet
    assert run(second_run()) == []
    assert not (tmp_path / held.path).exists() and not stray.parent.exists()
    assert Path(bound[0].path).exists()  # the sent one's copy stays
    assert notes.exists()  # the user's file stays


def test_a_failed_attachment_refuses_the_message_before_anything_is_written(tmp_path, fake_openai):
    from pypdf import PdfWriter

    scanned = tmp_path / "scan.pdf"
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    with scanned.open("wb") as handle:
        writer.write(handle)

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            document = await assistant.attachments.attach_file(scanned, None)
            with pytest.raises(AttachmentFailed, match=r"scan\.pdf could not be attached"):
                await assistant.orchestrator.send(
                    None, "What does it say?", attachment_ids=[document.id]
                )
            return await assistant.conversations.list()

    assert run(scenario()) == []  # no conversation was started


def test_the_readers_refusals_come_at_once(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(DocumentReadError, match=r"empty\.txt is empty"):
        check_readable(empty)
    with pytest.raises(DocumentReadError, match=r"latin\.txt is not UTF-8 text"):
        check_readable(latin)
    with pytest.raises(DocumentReadError, match="is a folder"):
        check_readable(folder)
    good = tmp_path / "good.md"
    good.write_text("# Title\n\nText.\n", encoding="utf-8")
    assert check_readable(good) == "markdown"


def test_a_paste_is_named_by_its_first_words_and_size():
    paste = "\n\n  Quarterly report for the northern region, second half of the year\nmore\n"
    assert pasted_name(paste) == "Pasted text, 5 lines: “Quarterly report for the northern…”"
    assert pasted_name("Short one") == "Pasted text, 9 characters: “Short one”"


def _awaiting(coroutine) -> list[str]:
    """The names of the coroutines ``coroutine`` is suspended in, outermost first."""
    names = []
    while coroutine is not None and hasattr(coroutine, "cr_code"):
        names.append(coroutine.cr_code.co_name)
        coroutine = coroutine.cr_await
    return names


def test_a_message_waits_for_its_chats_attachments_still_being_indexed(tmp_path, fake_openai):
    notes = tmp_path / "notes.txt"
    notes.write_text(MINE, encoding="utf-8")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            await assistant._store.run(pause_job_kind, INDEX_JOB)
            chat = await assistant.conversations.create()
            await assistant.attachments.attach_file(notes, chat.id)
            # Sent without naming it (as another client of the core would).
            turn = asyncio.create_task(
                assistant.orchestrator.send(chat.id, "When does Project Heron ship its beta?")
            )
            while "wait_ready" not in _awaiting(turn.get_coro()):
                # Each round lets the turn run on; it stops in the wait, or the test's
                # own time limit ends a turn that never waits.
                assert not turn.done(), "the message did not wait for its attachment"
                await asyncio.sleep(0.01)
            written = await assistant.conversations.messages(chat.id)
            await assistant._store.run(resume_job_kind, INDEX_JOB)
            assistant.runner.wake()
            return written, await turn

    written, result = run(scenario())
    assert written == []  # nothing was written while it waited
    assert [e.document_name for e in result.evidence_used] == ["notes.txt"]


def test_an_attachment_is_shown_on_the_first_message_sent_after_it():
    from acai_desktop.core.documents.model import Document, DocumentStatus, sent_with

    def attached(id: int, at: str) -> Document:
        return Document(id, f"/c/{id}.txt", f"{id}.txt", 10, "text", DocumentStatus.READY, at)

    stamp = "2026-01-01T10:00:{:02d}.000000+00:00".format
    files = [attached(i, stamp(second)) for i, second in ((1, 1), (2, 2), (3, 5), (4, 9))]
    said = [(11, stamp(3)), (12, stamp(6))]  # two sends; file 4 waits in the composer
    sent = sent_with(files, reversed(said))
    assert {m: [d.id for d in docs] for m, docs in sent.items()} == {11: [1, 2], 12: [3]}
