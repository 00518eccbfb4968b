"""What every controller works through: :class:`Services` (the assistant once it is open,
the tracked tasks, the status bar) and :func:`in_background`, the one way an action runs."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec

from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.status_text import short
from acai_desktop.ui.tasks import TaskTracker

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant

__all__ = ["Services", "in_background", "short"]

P = ParamSpec("P")
STATUS_MS = 6000
#: The answer being written; one at a time.
TURN_TASK = "turn"
STILL_OPENING = "Still opening the profile; try again in a moment."


class Services:
    """The controllers' facade over the core: the :class:`Assistant` while it is open
    (None while the profile opens or reconnects: actions then say to wait), the task
    tracker their work runs in (cancelled at shut-down), and the status bar."""

    def __init__(self, tasks: TaskTracker, show_status: Callable[[str, int], None]) -> None:
        self.tasks = tasks
        self.assistant: Assistant | None = None
        self._show_status = show_status
        #: Called when the memory's server went away (the app controller reconnects).
        self.on_store_lost: Callable[[], None] | None = None

    def refused(self, error: AcaiError, prefix: str = "") -> None:
        """Say a refusal from the core; one that means the memory's server went away
        also starts reconnecting (the window's banner then says so and keeps trying)."""
        from acai_desktop.core.profile.server_check import is_store_lost

        self.say(f"{prefix}{error}", 10_000)
        if is_store_lost(error) and self.on_store_lost is not None:
            self.on_store_lost()

    def say(self, text: str, timeout_ms: int = STATUS_MS) -> None:
        self._show_status(text, timeout_ms)

    def open_or_say_why(self) -> Assistant | None:
        """The assistant, or None after saying in the status bar that it is still opening."""
        if self.assistant is None:
            self.say(STILL_OPENING, 5000)
        return self.assistant

    def run(
        self, coro: Coroutine[Any, Any, Any], name: str, *, key: str | None = None
    ) -> asyncio.Task:
        """Run ``coro`` as a tracked task (under ``key``: one at a time, see
        :meth:`TaskTracker.start`); a refusal from the core goes to the status bar."""

        async def reporting() -> None:
            try:
                await coro
            except AcaiError as error:
                self.refused(error)

        task = self.tasks.start(reporting(), name=name, key=key)
        # Cancelled before it started (a newer one of its key, or shut-down): ``coro``
        # was never awaited; closing it says so to Python (no "never awaited" warning).
        task.add_done_callback(lambda _task: coro.close())
        return task

    async def stop_turn(self) -> None:
        """Stop the answer being written, if any, and wait until it has stopped."""
        turn = self.tasks.get(TURN_TASK)
        if turn is not None:
            self.tasks.cancel(TURN_TASK)
            await asyncio.wait([turn])


class Controller:
    """A feature's controller: its work goes through ``services``."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def say(self, text: str) -> None:
        self.services.say(text)


def in_background(
    name: str,
) -> Callable[
    [Callable[Concatenate[Any, Assistant, P], Coroutine[Any, Any, Any]]],
    Callable[Concatenate[Any, P], None],
]:
    """Make ``async def handler(self, assistant, *args)`` a slot taking ``*args``: while
    the profile is still opening the status bar says to wait; otherwise the handler runs
    as a tracked task, and an ``AcaiError`` it raises (a refusal from the core) is shown
    in the status bar."""

    def decorate(handler):
        @functools.wraps(handler)
        def slot(self: Controller, *args: Any) -> None:
            assistant = self.services.open_or_say_why()
            if assistant is not None:
                self.services.run(handler(self, assistant, *args), name)

        return slot

    return decorate
