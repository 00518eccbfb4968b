"""The GUI as a program: the QApplication, qasync's loop, and the signals that quit it.

1. create the QApplication (name, icon, theme) and make qasync's loop the asyncio loop;
2. run one :class:`AppController` (:mod:`acai_desktop.ui.app_controller`) until the user quits
   (closing the window, Ctrl+Q, SIGINT/SIGTERM, the desktop session ending, or
   ``--quit-after-ms`` in smoke tests), then let it shut down while the loop runs;
3. close the loop.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from acai_desktop import __version__
from acai_desktop.core.profile.paths import APP_NAME, Profile
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.garbage import MainThreadGarbageCollector
from acai_desktop.ui.main_window import WINDOW_TITLE
from acai_desktop.ui.theme import app_icon, apply_theme

log = logging.getLogger(__name__)

# Python runs signal handlers only between bytecodes; while Qt's C++ loop idles no
# bytecode runs, so a timer wakes the interpreter now and then to notice Ctrl+C.
SIGNAL_POLL_MS = 250


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
    # The stylesheet comes once the window is built (see apply_theme).
    apply_theme(app, stylesheet=False)
    return app


def run_gui(
    profile: Profile,
    *,
    quit_after_ms: int | None = None,
    on_session: Callable[[QApplication, AppController], None] | None = None,
    process_ends: bool = False,
) -> int:
    """Open the window and block until the user quits; returns the exit code.

    ``on_session`` sees the application and the session before the session starts
    (``bench startup`` watches the start-up through it). ``process_ends``: the caller
    ends the process right after (``acai-desktop gui``), so nothing is left to tidy up
    for a later window."""
    # Imported here, after PySide6: qasync binds to the first Qt binding it finds
    # loaded, and another one (PyQt5 from the system) might come first otherwise.
    import qasync

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=quit_after_ms, process_ends=process_ends)
    if on_session is not None:
        on_session(app, session)
    app.aboutToQuit.connect(session.request_quit)
    restore_signals = _quit_on_signals(loop, session.request_quit)
    collector = MainThreadGarbageCollector()
    collector.start()
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
        collector.stop(collect=not process_ends)


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
