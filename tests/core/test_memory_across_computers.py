"""Two computers changing one memory at once on the PostgreSQL store (issue 27 item 3):
neither change is lost from its history, and a user's edit still wins over a processor's
by the same rules as on one computer."""

from __future__ import annotations

import asyncio
import threading

from acai_desktop.core.records.memories import Actor, MemoryStatus
from acai_desktop.core.store.memory_writes import update_memory
from tests.support.aio import run
from tests.support.memory import memory_services

_WAITING_FOR_A_LOCK = (
    "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'"
)


async def _until_waiting_for_a_lock(store, pid: int) -> None:
    """Until the server says the connection ``pid`` waits for a row lock: a question to
    the server, not a guess at how long that takes."""
    while not await store.read(lambda db: db.execute(_WAITING_FOR_A_LOCK, [pid]).fetchone()[0]):
        await asyncio.sleep(0.02)


def test_a_processors_change_racing_a_users_edit_on_another_computer_is_refused(
    postgres_url, tmp_path
):
    async def scenario():
        async with (
            memory_services(tmp_path, store_location=postgres_url) as (desk, window, _l),
            memory_services(tmp_path, store_location=postgres_url) as (laptop, learner, _m),
        ):
            item = await window.remember("My sister is called Ana", explicit=True)
            edited, release = threading.Event(), threading.Event()

            def users_edit_held_open(db):
                # The user's edit on the desktop, its transaction still open.
                with db.atomic():
                    update_memory(
                        db,
                        item.id,
                        {"content": "My sister is called Anna", "user_edited": True},
                        actor=Actor.USER,
                        action="edited",
                    )
                    edited.set()
                    release.wait(30)

            editing = desk.submit(users_edit_held_open)
            await asyncio.to_thread(edited.wait, 30)
            laptop_pid = await laptop.run(
                lambda db: db.execute("SELECT pg_backend_pid()").fetchone()[0]
            )
            processor = asyncio.ensure_future(
                learner.propose_change(
                    item.id, "My sister is called Ana Maria", actor="critical_info_processor"
                )
            )
            # The laptop reads the row (asked on the desktop's reader: its writer is busy).
            await _until_waiting_for_a_lock(desk, laptop_pid)
            release.set()
            await editing
            conflict = await processor  # refused: a conflict row instead (logged, not raised)
            stored = await window.get(item.id)
            history = await window.history(item.id)
            return stored, conflict, history

    stored, conflict, history = run(scenario())
    assert stored.content == "My sister is called Anna" and stored.user_edited
    assert conflict.status == MemoryStatus.CONFLICT
    assert conflict.content == "My sister is called Ana Maria"  # kept, for the user
    assert [event.action for event in history][-1] == "edited"


def test_two_users_edits_of_one_memory_at_once_on_two_computers_both_stay_in_its_history(
    postgres_url, tmp_path
):
    """The laptop's edit waits for the desktop's to commit, then changes the text the
    desktop wrote: the later edit wins and the history holds both, the second starting
    from the first (not from the text both computers read before)."""

    async def scenario():
        async with (
            memory_services(tmp_path, store_location=postgres_url) as (desk, window, _l),
            memory_services(tmp_path, store_location=postgres_url) as (laptop, other, _m),
        ):
            item = await window.remember("My sister is called Ana", explicit=True)
            edited, release = threading.Event(), threading.Event()

            def desktop_edit_held_open(db):
                with db.atomic():
                    update_memory(
                        db,
                        item.id,
                        {"content": "My sister is called Anna", "user_edited": True},
                        actor=Actor.USER,
                        action="edited",
                    )
                    edited.set()
                    release.wait(30)

            editing = desk.submit(desktop_edit_held_open)
            await asyncio.to_thread(edited.wait, 30)
            laptop_pid = await laptop.run(
                lambda db: db.execute("SELECT pg_backend_pid()").fetchone()[0]
            )
            laptop_edit = asyncio.ensure_future(other.edit(item.id, "My sister is called Anne"))
            await _until_waiting_for_a_lock(desk, laptop_pid)
            release.set()
            await editing
            await laptop_edit
            return await window.get(item.id), await other.history(item.id)

    stored, history = run(scenario())
    assert stored.content == "My sister is called Anne"  # the later edit wins
    edits = [event for event in history if event.action == "edited"]
    assert [(e.before["content"], e.after["content"]) for e in edits] == [
        ("My sister is called Ana", "My sister is called Anna"),
        ("My sister is called Anna", "My sister is called Anne"),
    ]
