"""Another program holding the database: writes wait their turn, a user's message is kept."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading

import pytest

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store import connection, database
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import DatabaseBusyError, Store
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant


def hold_write_lock(path, seconds: float, locked: threading.Event) -> threading.Thread:
    """Another connection (as another process's long import) holds the write lock."""

    def hold() -> None:
        connection = sqlite3.connect(path, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT INTO conversations (title, created_at, updated_at) "
                "VALUES ('import', 'now', 'now')"
            )
            locked.set()
            threading.Event().wait(seconds)
            connection.execute("COMMIT")
        finally:
            connection.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread


def test_a_read_then_write_transaction_waits_for_another_writer(tmp_path):
    """Deferred, the read's snapshot goes stale when another connection commits, and the
    write fails at once with "database is locked"; BEGIN IMMEDIATE waits its turn."""

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        read_done, other_wrote = threading.Event(), threading.Event()

        def read_then_write(db):
            with db.atomic():
                db.execute("SELECT count(*) FROM conversations").fetchone()
                read_done.set()
                other_wrote.wait(10)
                db.execute(
                    "INSERT INTO conversations (title, created_at, updated_at) "
                    "VALUES ('mine', 'now', 'now')"
                )

        def other_writer():
            other = sqlite3.connect(tmp_path / "acai.sqlite3", isolation_level=None, timeout=1)
            read_done.wait(10)
            try:
                other.execute("BEGIN IMMEDIATE")
                other.execute(
                    "INSERT INTO conversations (title, created_at, updated_at) "
                    "VALUES ('theirs', 'now', 'now')"
                )
                other.execute("COMMIT")
            except sqlite3.OperationalError:
                pass  # it waited for our transaction: also fine, nothing is lost
            finally:
                other.close()
                other_wrote.set()

        thread = threading.Thread(target=other_writer, daemon=True)
        thread.start()
        await store.run(read_then_write)
        thread.join(20)
        keys = await store.run(
            lambda db: sorted(r[0] for r in db.execute("SELECT title FROM conversations"))
        )
        await store.close()
        return keys

    assert "mine" in run(scenario())


def test_a_users_message_waits_out_a_long_import_instead_of_being_lost(
    tmp_path, fake_openai, monkeypatch
):
    fake_openai.responder = fake_model
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 300)  # each attempt gives up fast

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            locked = threading.Event()
            holder = hold_write_lock(assistant.profile.database_path, 2.0, locked)
            await asyncio.to_thread(locked.wait, 10)
            result = await assistant.orchestrator.send(conversation.id, "My name is John.")
            holder.join(10)
            return result, await assistant.conversations.messages(conversation.id)

    result, messages = run(scenario())
    assert (messages[0].role, messages[0].content) == ("user", "My name is John.")
    assert result.status == "complete"
    assert len(result.job_ids) == 3  # learning, summary, title


def test_a_message_busy_for_too_long_is_refused_with_the_reason_and_nothing_half_written(
    tmp_path, fake_openai, monkeypatch
):
    fake_openai.responder = fake_model
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(connection, "PATIENT_WRITE_SECONDS", 0.5)

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            locked = threading.Event()
            holder = hold_write_lock(assistant.profile.database_path, 3.0, locked)
            await asyncio.to_thread(locked.wait, 10)
            with pytest.raises(DatabaseBusyError, match="Your message was not saved"):
                await assistant.orchestrator.send(conversation.id, "My name is John.")
            holder.join(10)
            return await assistant.conversations.messages(
                conversation.id
            ), await assistant._jobs.list()

    messages, jobs = run(scenario())
    assert messages == [] and jobs == []


class BusyRetries(logging.Handler):
    """Notes when a write found the database busy past the busy timeout and is about
    to try again (the moment another program's lock has really been in its way)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "trying to begin the write again" in record.getMessage():
            self.seen.set()


@pytest.fixture
def busy_retries():
    logger = logging.getLogger(connection.__name__)  # begin_patiently's
    watch, level = BusyRetries(), logger.level
    logger.addHandler(watch)
    logger.setLevel(logging.INFO)
    yield watch
    logger.removeHandler(watch)
    logger.setLevel(level)


def hold_write_lock_until(
    path, release: threading.Event, locked: threading.Event
) -> threading.Thread:
    """Another program's write lock, held until ``release`` (or half a minute)."""

    def hold() -> None:
        connection = sqlite3.connect(path, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            locked.set()
            release.wait(30)
            connection.execute("COMMIT")
        finally:
            connection.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread


def test_an_answer_is_saved_whole_when_another_program_held_the_database_meanwhile(
    tmp_path, fake_openai, monkeypatch, busy_retries
):
    """The lock is taken as the model starts answering and released only once a write
    of the turn has waited past its busy timeout: the answer's saves wait their turn,
    and the streamed text is written whole (it was lost, the row left empty)."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    answer_text = "Here is the whole answer, every word of it kept."
    database_path = tmp_path / "profile" / "acai.sqlite3"
    holders: list[threading.Thread] = []

    def lock_then_answer(body):
        locked = threading.Event()
        holders.append(hold_write_lock_until(database_path, busy_retries.seen, locked))
        locked.wait(10)
        return Reply(text=answer_text)

    fake_openai.responder = lock_then_answer

    async def scenario():
        async with running_assistant(
            tmp_path / "profile", fake_openai, start_jobs=False
        ) as assistant:
            assert assistant.profile.database_path == database_path
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "Tell me, please.")
            return result, await assistant.conversations.messages(conversation.id)

    result, messages = run(scenario())
    assert busy_retries.seen.is_set()  # the lock was really in the way
    holders[0].join(10)
    assert result.status == "complete" and result.answer.error is None
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "Tell me, please."),
        ("assistant", "complete", answer_text),
    ]


def test_start_up_recovery_waits_for_another_program_instead_of_failing(
    tmp_path, monkeypatch, busy_retries
):
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "acai.sqlite3"

    async def scenario():
        store = await Store.open(path)
        try:
            conversations = ConversationRepository(store)
            conversation = await conversations.create()
            await conversations.add_message(
                conversation.id, "assistant", "half an answ", status=MessageStatus.STREAMING
            )
            locked = threading.Event()
            holder = hold_write_lock_until(path, busy_retries.seen, locked)
            await asyncio.to_thread(locked.wait, 10)
            recovered = await conversations.recover_interrupted_answers()
            holder.join(10)
            return recovered, await conversations.messages(conversation.id)
        finally:
            await store.close()

    recovered, messages = run(scenario())
    assert busy_retries.seen.is_set()
    assert recovered == 1
    assert [(m.status, m.content) for m in messages] == [("stopped", "half an answ")]
