"""Importing the assistant's heavy modules off the UI thread, without holding up quitting.

The window shows the profile's data first and imports the assistant's modules (the
model client, numpy: seconds on a slow disk) on a worker thread meanwhile. A user who
quits in those seconds must not wait for that import to end: so it runs on a daemon
thread of its own, not on the loop's executor, whose threads quitting joins. Nothing of
ours is half-made there (an import only creates modules), and the process ends without it.

When the process is about to end anyway (``acai-desktop gui``, ``abandon=True``), a
cancelled import also stops at its next module instead of running on: it held the GIL
while the window shut down, a tenth of a quick open-and-quit (issue 22, start-up
measured from outside). A test or a headless run lives on after the window: there the
import finishes, so a later import of the same modules finds them whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.abc
import sys
import threading
from types import ModuleType


class ImportAbandoned(BaseException):
    """Raised inside an abandoned import's thread: a BaseException, so no module's
    ``except ImportError`` (or ``except Exception``) fallback carries the import on."""


class _StopAtNextModule(importlib.abc.MetaPathFinder):
    """Once ``abandoned``, any import on its thread raises :class:`ImportAbandoned`: the
    import unwinds (each half-run module leaves ``sys.modules``, every module lock is
    released) and the thread ends. Imports on other threads are untouched."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.abandoned = False

    def find_spec(self, name, path=None, target=None):
        if self.abandoned and threading.get_ident() == self.thread:
            raise ImportAbandoned(name)
        return None


async def import_in_background(name: str, *, abandon: bool = False) -> ModuleType:
    """``importlib.import_module(name)`` on a daemon thread; its error is raised here.
    ``abandon``: if the awaiting task is cancelled, the import stops at its next module."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[ModuleType] = loop.create_future()
    stopper = _StopAtNextModule() if abandon else None

    def settle(module: ModuleType | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(module)

    def work() -> None:
        module, error = None, None
        if stopper is not None:
            stopper.thread = threading.get_ident()
            sys.meta_path.insert(0, stopper)
        try:
            module = importlib.import_module(name)
        except BaseException as raised:  # handed to the awaiting coroutine
            error = raised
        finally:
            if stopper is not None:
                sys.meta_path.remove(stopper)
        # RuntimeError: the loop closed meanwhile, and nobody waits any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, module, error)

    threading.Thread(target=work, name=f"import {name}", daemon=True).start()
    try:
        return await done
    except asyncio.CancelledError:
        if stopper is not None:
            stopper.abandoned = True
        raise
