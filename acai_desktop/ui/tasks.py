"""Strong handles to every asyncio task the UI starts.

asyncio keeps only weak references to tasks, and qasync's ``asyncSlot`` keeps none,
so a task started from a slot can vanish mid-flight. Everything the UI starts goes
through one :class:`TaskTracker`: it holds the task, logs a failure instead of
letting it disappear, lets a newer request of the same kind replace the older one
(the Stop button and "regenerate" rely on that), and lets shut-down cancel and
await everything still running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class TaskTracker:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._by_key: dict[str, asyncio.Task[Any]] = {}

    def start(
        self, coro: Coroutine[Any, Any, T], *, key: str | None = None, name: str | None = None
    ) -> asyncio.Task[T]:
        """Run ``coro`` as a tracked task on the running loop.

        With ``key``, a still-running task started under the same key is cancelled
        first: a newer request of the same kind replaces the older one, and starts
        only once the older one has finished its clean-up, so the two never overlap.
        """
        if key is not None:
            previous = self._by_key.get(key)
            if previous is not None and not previous.done():
                previous.cancel()
                coro = _after(previous, coro)
        task = asyncio.get_running_loop().create_task(coro, name=name or key)
        self._tasks.add(task)
        if key is not None:
            self._by_key[key] = task
        task.add_done_callback(self._on_task_done)
        return task

    def cancel(self, key: str) -> bool:
        """Cancel the task started under ``key``; True if one was running.

        The task stays known under its key until its clean-up has finished (a stopped
        answer still saves its text), so ``get`` keeps reporting it until then and
        nothing that must wait for it (a reconnect, a delete) can slip in between."""
        task = self._by_key.get(key)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def get(self, key: str) -> asyncio.Task[Any] | None:
        task = self._by_key.get(key)
        return task if task is not None and not task.done() else None

    def __len__(self) -> int:
        return sum(1 for task in self._tasks if not task.done())

    async def cancel_all(self) -> None:
        """Cancel every tracked task and wait until each has finished its clean-up.

        Tasks started while we wait (a ``finally`` that schedules more work) are
        cancelled and awaited too.
        """
        while pending := [task for task in self._tasks if not task.done()]:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        for key, known in list(self._by_key.items()):
            if known is task:
                del self._by_key[key]
        if task.cancelled():
            return
        error = task.exception()  # also marks the exception as retrieved
        if error is not None:
            log.error("task %s failed", task.get_name(), exc_info=error)


async def _after(previous: asyncio.Task[Any], coro: Coroutine[Any, Any, T]) -> T:
    try:
        await asyncio.gather(previous, return_exceptions=True)
    except BaseException:
        coro.close()  # cancelled while waiting: never started, and no "never awaited"
        raise
    return await coro
