"""Drive a real GuiSession on qasync's loop from a test: the session runs as a task,
the scenario is a coroutine beside it, and waiting is polling with a deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import qasync

from acai_desktop.ui.app import GuiSession, create_application
from acai_desktop.ui.garbage import MainThreadGarbageCollector

#: Generous: CI machines are slow and the memory processors make several model calls.
WAIT_SECONDS = 30.0


async def wait_until(condition: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Let the loop run until ``condition()`` is truthy; fail with its name on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {condition}")
        await asyncio.sleep(0.02)


def run_in_session(session: GuiSession, scenario: Callable[[GuiSession], Awaitable[Any]]) -> Any:
    """Start ``session``, wait until it has opened its services, run ``scenario``, quit."""
    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    async def main() -> Any:
        running = asyncio.ensure_future(session.run())
        try:
            await wait_until(lambda: session.services is not None or running.done())
            if running.done():
                return running.result()
            # Opening also loads the lists; wait for it to finish.
            await wait_until(lambda: session.tasks.get("open") is None)
            return await scenario(session)
        finally:
            session.request_quit()
            await running

    # As run_gui does: cycles are collected on the Qt thread only, never on a worker
    # thread where destroying qasync's timers makes Qt warn (and a later test fail).
    collector = MainThreadGarbageCollector()
    collector.start()
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        collector.stop()
