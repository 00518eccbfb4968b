"""TaskTracker: every UI task has a handle, can be replaced, and is awaited at quit."""

from __future__ import annotations

import asyncio
import logging

from acai_desktop.ui.tasks import TaskTracker
from tests.support.aio import run


async def forever(events: list[str], name: str) -> None:
    events.append(f"{name} started")
    try:
        await asyncio.Event().wait()
    finally:
        # Clean-up that itself awaits, as closing a stream does.
        await asyncio.sleep(0)
        events.append(f"{name} cleaned up")


def test_cancel_all_cancels_and_awaits_clean_up():
    async def scenario():
        tracker, events = TaskTracker(), []
        first = tracker.start(forever(events, "a"))
        second = tracker.start(forever(events, "b"))
        await asyncio.sleep(0)
        assert len(tracker) == 2
        await tracker.cancel_all()
        assert first.cancelled() and second.cancelled()
        assert len(tracker) == 0
        return events

    events = run(scenario())
    assert sorted(events) == ["a cleaned up", "a started", "b cleaned up", "b started"]


def test_newer_task_with_the_same_key_replaces_the_older():
    async def scenario():
        tracker, events = TaskTracker(), []
        old = tracker.start(forever(events, "old"), key="turn")
        await asyncio.sleep(0)
        new = tracker.start(forever(events, "new"), key="turn")
        await asyncio.sleep(0.01)
        assert old.cancelled()
        assert tracker.get("turn") is new and not new.done()
        assert tracker.cancel("turn") is True
        await asyncio.sleep(0.01)
        assert new.cancelled()
        assert tracker.get("turn") is None
        assert tracker.cancel("turn") is False
        return events

    assert run(scenario()) == [
        "old started",
        "old cleaned up",
        "new started",
        "new cleaned up",
    ]


def test_a_failing_task_is_logged_not_lost(caplog):
    async def boom():
        raise RuntimeError("model unreachable")

    async def scenario():
        tracker = TaskTracker()
        task = tracker.start(boom(), name="turn-1")
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(0)  # done callbacks run on the next loop pass
        return tracker

    with caplog.at_level(logging.ERROR, logger="acai_desktop.ui.tasks"):
        tracker = run(scenario())
    assert len(tracker) == 0
    [record] = caplog.records
    assert "turn-1 failed" in record.getMessage()
    assert isinstance(record.exc_info[1], RuntimeError)


def test_tasks_started_during_shutdown_are_awaited_too():
    async def scenario():
        tracker, events = TaskTracker(), []

        async def spawns_on_cancel():
            try:
                await asyncio.Event().wait()
            finally:
                tracker.start(forever(events, "late"))

        tracker.start(spawns_on_cancel())
        await asyncio.sleep(0)
        await tracker.cancel_all()
        assert len(tracker) == 0
        return events

    assert run(scenario()) == ["late started", "late cleaned up"]


def test_a_cancelled_task_stays_visible_until_its_clean_up_is_done():
    async def scenario():
        tracker = TaskTracker()
        cleaned = asyncio.Event()

        async def turn():
            try:
                await asyncio.sleep(60)
            finally:
                await asyncio.sleep(0.05)  # e.g. saving the partial answer
                cleaned.set()

        task = tracker.start(turn(), key="turn")
        await asyncio.sleep(0)
        assert tracker.cancel("turn") is True
        seen_during_clean_up = tracker.get("turn")
        await asyncio.gather(task, return_exceptions=True)
        return seen_during_clean_up is task, cleaned.is_set(), tracker.get("turn")

    visible, cleaned, after = asyncio.run(scenario())
    assert visible and cleaned and after is None
