"""Two computers writing one conversation's messages at once, on PostgreSQL (issue 39
G1): the turns take the conversation one after the other, and the recall index's
refresh is an upsert. Two real sessions on the throwaway cluster; the second computer's
work runs on a thread while the first holds its transaction open."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.conversations import (
    add_turn,
    create_conversation,
    update_message,
)
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.postgres.database import PostgresDatabase

WAIT_S = 30.0


def _computer(url: str) -> PostgresDatabase:
    db = PostgresDatabase(url)
    migrations.apply(db)
    return db


def _wait_until_waiting_on_a_lock(url: str, pid: int) -> None:
    """Until session ``pid`` waits for a lock (or the thread gave up: its error shows)."""
    deadline = time.monotonic() + WAIT_S
    with psycopg.connect(url, autocommit=True) as watcher:
        while time.monotonic() < deadline:
            row = watcher.execute(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid]
            ).fetchone()
            if row and row[0] == "Lock":
                return
            time.sleep(0.02)
    raise AssertionError(f"session {pid} never waited for a lock")


def test_a_turn_waits_for_the_other_computers_turn_and_follows_it(postgres_url):
    desktop, laptop = _computer(postgres_url), _computer(postgres_url)
    try:
        chat = create_conversation(desktop)
        first = add_turn(desktop, chat.id, "Hello.")
        update_message(desktop, first.answer.id, content="Hi.", status=MessageStatus.COMPLETE)
        with ThreadPoolExecutor(1) as laptop_thread:
            with desktop.atomic():
                on_desktop = add_turn(desktop, chat.id, "From the desktop.")
                # The desktop's turn is not committed yet: the laptop's must wait for it.
                on_laptop = laptop_thread.submit(add_turn, laptop, chat.id, "From the laptop.")
                _wait_until_waiting_on_a_lock(postgres_url, laptop.connection.info.backend_pid)
            on_laptop = on_laptop.result(timeout=WAIT_S)
        rows = desktop.execute(
            "SELECT id, parent_id FROM messages WHERE conversation_id = ? ORDER BY id", [chat.id]
        ).fetchall()
    finally:
        desktop.close()
        laptop.close()
    assert on_laptop.user_message.parent_id == on_desktop.answer.id  # not a second root
    assert [parent for _id, parent in rows] == [None, *[i for i, _parent in rows[:-1]]]


def test_two_computers_refreshing_one_recall_window_at_once_both_succeed(postgres_url):
    """The trigger's function itself, without the conversation's lock: the second
    refresh waits for the first, then updates the rows the first put back."""
    desktop, laptop = _computer(postgres_url), _computer(postgres_url)
    try:
        chat = create_conversation(desktop)
        turn = add_turn(desktop, chat.id, "My sister is called Ada.")
        update_message(desktop, turn.answer.id, content="Noted.", status=MessageStatus.COMPLETE)
        refresh = "SELECT acai_refresh_recall_window(?, ?)"
        failure: list[BaseException] = []

        def on_laptop() -> None:
            try:
                with laptop.atomic():
                    laptop.execute(refresh, [chat.id, turn.answer.id])
            except BaseException as error:
                failure.append(error)

        with desktop.atomic():
            desktop.execute(refresh, [chat.id, turn.answer.id])
            thread = threading.Thread(target=on_laptop)
            thread.start()
            _wait_until_waiting_on_a_lock(postgres_url, laptop.connection.info.backend_pid)
        thread.join(WAIT_S)
        indexed = desktop.execute(
            "SELECT id, content, context FROM message_recall ORDER BY id"
        ).fetchall()
    finally:
        desktop.close()
        laptop.close()
    assert failure == []
    assert indexed == [
        (turn.user_message.id, "My sister is called Ada.", "Noted."),
        (turn.answer.id, "Noted.", "My sister is called Ada."),
    ]
