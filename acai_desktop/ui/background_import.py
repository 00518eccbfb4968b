"""Importing the assistant's heavy modules off the UI thread, without holding up quitting.

The window shows the profile's data first and imports the assistant's modules (the
model client, numpy, the store's library: seconds on a slow disk) on a worker thread
meanwhile. A user who quits in those seconds must not wait for that import to end: so
it runs on a daemon thread of its own, not on the loop's executor, whose threads
quitting joins. Nothing of ours is half-made there (an import only creates modules),
and the process ends without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading
from types import ModuleType


async def import_in_background(name: str) -> ModuleType:
    """``importlib.import_module(name)`` on a daemon thread; its error is raised here."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[ModuleType] = loop.create_future()

    def settle(module: ModuleType | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(module)

    def work() -> None:
        module, error = None, None
        try:
            module = importlib.import_module(name)
        except BaseException as raised:  # handed to the awaiting coroutine
            error = raised
        # RuntimeError: the loop closed meanwhile, and nobody waits any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, module, error)

    threading.Thread(target=work, name=f"import {name}", daemon=True).start()
    return await done
