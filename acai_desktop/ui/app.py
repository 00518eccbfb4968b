"""Start-up and shut-down of the GUI, as explicit steps.

1. create the QApplication (name, icon, theme) and make qasync's loop the asyncio loop;
2. open the services (the profile's database);
3. show the window and wire it to the session;
4. run until the user quits (closing the window, Ctrl+Q, SIGINT/SIGTERM, the
   desktop session ending, or ``--quit-after-ms`` in smoke tests);
5. shut down while the loop still runs: hide the window, cancel and await every
   tracked task, then close the services (client, database);
6. close the loop.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from acai_desktop import __version__
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile import APP_NAME, Profile
from acai_desktop.core.store.database import Store
from acai_desktop.ui.main_window import WINDOW_TITLE, MainWindow
from acai_desktop.ui.tasks import TaskTracker
from acai_desktop.ui.theme import app_icon, apply_theme

log = logging.getLogger(__name__)

# Python runs signal handlers only between bytecodes; while Qt's C++ loop idles no
# bytecode runs, so a timer wakes the interpreter now and then to notice Ctrl+C.
SIGNAL_POLL_MS = 250
TURN_TASK = "turn"


@dataclass
class GuiServices:
    """What the window talks to, opened at start-up and closed at shut-down."""

    profile: Profile
    store: Store
    events: EventBus = field(default_factory=EventBus)

    async def aclose(self) -> None:
        await self.store.close()


async def open_services(profile: Profile) -> GuiServices:
    profile.ensure()
    store = await Store.open(profile.database_path)
    return GuiServices(profile=profile, store=store)


def create_application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(WINDOW_TITLE)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)
    app.setWindowIcon(app_icon())
    # Closing the window starts our shut-down; Qt must not leave its loop before
    # that has cancelled the tasks and closed the database.
    app.setQuitOnLastWindowClosed(False)
    apply_theme(app)
    return app


class GuiSession:
    """One run of the window, from open services to closed services."""

    def __init__(self, profile: Profile, *, quit_after_ms: int | None = None) -> None:
        self.profile = profile
        self.quit_after_ms = quit_after_ms
        self.tasks = TaskTracker()
        self.services: GuiServices | None = None
        self.window: MainWindow | None = None
        self._quit = asyncio.Event()

    def request_quit(self) -> None:
        self._quit.set()

    async def run(self) -> int:
        if self.quit_after_ms is not None:
            QTimer.singleShot(self.quit_after_ms, self.request_quit)
        try:
            try:
                self.services = await open_services(self.profile)
            except AcaiError as error:
                await self._show_start_up_error(error)
                raise
            self.window = MainWindow()
            self._connect_signals()
            self.window.show_status(f"Profile: {self.profile.data_dir}")
            self.window.show()
            await self._quit.wait()
        finally:
            await self.shutdown()
        return 0

    async def shutdown(self) -> None:
        if self.window is not None:
            self.window.hide()
        await self.tasks.cancel_all()
        if self.services is not None:
            services, self.services = self.services, None
            await services.aclose()
        if self.window is not None:
            self.window.deleteLater()
            self.window = None

    def _connect_signals(self) -> None:
        assert self.window is not None
        self.window.quit_requested.connect(self.request_quit)
        self.window.send_requested.connect(self._on_window_send_requested)
        self.window.stop_requested.connect(self._on_window_stop_requested)
        self.window.new_conversation_requested.connect(self._on_window_new_conversation_requested)

    def _on_window_send_requested(self, text: str) -> None:
        # The orchestrator (model client, memory, processors) plugs in here and runs
        # each turn as self.tasks.start(..., key=TURN_TASK).
        assert self.window is not None
        self.window.show_status("No model is connected yet, so the message was not sent.")

    def _on_window_stop_requested(self) -> None:
        self.tasks.cancel(TURN_TASK)

    def _on_window_new_conversation_requested(self) -> None:
        assert self.window is not None
        self.window.set_conversation_title("New conversation")

    async def _show_start_up_error(self, error: AcaiError) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Critical,
            WINDOW_TITLE,
            f"ACAI Desktop could not open its profile.\n\n{error}",
        )
        closed = asyncio.Event()
        box.finished.connect(closed.set)
        box.open()  # never exec(): a nested Qt loop would stall the asyncio loop
        waiters = [asyncio.ensure_future(closed.wait()), asyncio.ensure_future(self._quit.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            box.deleteLater()


def run_gui(profile: Profile, *, quit_after_ms: int | None = None) -> int:
    """Open the window and block until the user quits; returns the exit code."""
    # Imported here, after PySide6: qasync binds to the first Qt binding it finds
    # loaded, and another one (PyQt5 from the system) might come first otherwise.
    import qasync

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = GuiSession(profile, quit_after_ms=quit_after_ms)
    app.aboutToQuit.connect(session.request_quit)
    restore_signals = _quit_on_signals(loop, session.request_quit)
    try:
        main = loop.create_task(session.run(), name="gui-session")
        try:
            return loop.run_until_complete(main)
        except RuntimeError:
            if main.done():
                raise
            # Qt left its loop by itself (the desktop session is ending): run it once
            # more so the shut-down steps can finish.
            log.info("Qt event loop ended early; finishing shut-down")
            return loop.run_until_complete(main)
    finally:
        restore_signals()
        app.aboutToQuit.disconnect(session.request_quit)
        loop.close()
        asyncio.set_event_loop(None)


def _quit_on_signals(loop: asyncio.AbstractEventLoop, quit: Callable[[], None]):
    """SIGINT and SIGTERM ask for a clean shut-down; returns a function undoing this."""
    previous = {}

    def handler(signum: int, frame: object) -> None:
        loop.call_soon_threadsafe(quit)

    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, handler)
    poll = QTimer()
    poll.timeout.connect(lambda: None)
    poll.start(SIGNAL_POLL_MS)

    def restore() -> None:
        poll.stop()
        for signum, old in previous.items():
            signal.signal(signum, old)

    return restore
