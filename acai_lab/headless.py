"""The real window with nobody in front of it: for ``--self-test``, ``bench soak`` and tests.

- :func:`use_offscreen_platform` must run before the QApplication exists;
- :func:`run_in_session` starts an :class:`AppController` on qasync's loop, waits until it has
  opened its services, runs a scenario coroutine beside it, then quits it cleanly;
- :func:`wait_until` is how a scenario waits: polling with a deadline, the loop running;
- :class:`QtMessageCounter` counts the warnings Qt logs meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QtMsgType, qInstallMessageHandler

from acai_desktop.ui.app import create_application
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.garbage import MainThreadGarbageCollector

#: Generous: slow machines, and the memory processors make several model calls.
WAIT_SECONDS = 30.0

#: Qt messages that say nothing about the app: the offscreen platform has no window
#: manager to pass size hints to, and says so once per top-level window.
HARMLESS_QT_MESSAGES = ("This plugin does not support propagateSizeHints",)


def use_offscreen_platform() -> None:
    """Draw into memory instead of a screen; call before the QApplication is created."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not os.environ.get("XDG_RUNTIME_DIR"):
        # Without it (containers, root) Qt warns at start-up; give it a private one.
        runtime_dir = tempfile.mkdtemp(prefix="acai-xdg-runtime-")
        os.chmod(runtime_dir, 0o700)
        os.environ["XDG_RUNTIME_DIR"] = runtime_dir


async def wait_until(condition: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Let the loop run until ``condition()`` is truthy; fail with its name on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {condition}")
        await asyncio.sleep(0.02)


def run_in_session(
    session: AppController,
    scenario: Callable[[AppController], Awaitable[Any]],
    *,
    wait_for_open: bool = True,
) -> Any:
    """Start ``session`` (an app controller), wait until it has opened its services, run
    ``scenario``, quit.

    A run that fails to open (its ``run`` ends first) is returned or raised as is.
    ``wait_for_open`` False runs ``scenario`` as soon as the window shows (what happens
    before the services open: the first start's question)."""
    import qasync  # after PySide6, as in run_gui: qasync binds to the loaded Qt binding

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    async def main() -> Any:
        running = asyncio.ensure_future(session.run())
        try:
            if not wait_for_open:
                await wait_until(lambda: session.started)
                return await scenario(session)
            await wait_until(lambda: session.assistant is not None or running.done())
            if running.done():
                return running.result()
            # Opening also loads the lists; wait for it to finish.
            await wait_until(lambda: session.tasks.get("open") is None)
            return await scenario(session)
        finally:
            session.request_quit()
            await running

    # As run_gui does: cycles are collected on the Qt thread only, never on a worker
    # thread where destroying qasync's timers makes Qt warn (or crash).
    collector = MainThreadGarbageCollector()
    collector.start()
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        collector.stop()


class QtMessageCounter:
    """Counts Qt's warnings (and worse) while installed, keeping the first few texts.

    The previous handler still gets every message, so nothing is hidden from the log
    (or from pytest-qt, when a test uses this)."""

    KEEP = 20

    def __init__(self) -> None:
        self.warnings = 0
        self.samples: list[str] = []
        self._previous = None

    def install(self) -> QtMessageCounter:
        self._previous = qInstallMessageHandler(self._handle)
        return self

    def uninstall(self) -> None:
        qInstallMessageHandler(self._previous)
        self._previous = None

    def _handle(self, kind: QtMsgType, context, text: str) -> None:
        serious = kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
        if serious and not any(harmless in text for harmless in HARMLESS_QT_MESSAGES):
            self.warnings += 1
            if len(self.samples) < self.KEEP:
                self.samples.append(text)
        if self._previous is not None:
            self._previous(kind, context, text)
