"""One measured start of the window, run as its own process by ``bench startup``.

``python -m benchmarks.ui.startup_probe app --data-dir D --started-at T`` starts the
real window on profile D exactly as ``acai-desktop`` does (``run_gui``) and watches it:

* ``painted_s`` — the first paint of the main window;
* ``ready_s`` — the window painted, the profile loaded (the session's open step done
  and the memory panel's first page shown) and the event loop responsive (a 5 ms
  timer's tick no more than ``RESPONSIVE_MS`` late);
* ``started_s`` — the assistant's services (model client, memory index, job runner)
  open too: they start behind the data already shown;
* ``max_stall_ms`` — the longest lateness of that 5 ms timer from the first paint
  until ``--settle`` seconds after both (what loads in the background shows here).

Times count from ``--started-at`` (the wall clock when the parent started this process),
so Python's own start and every import are included. ``bare`` does the same with a bare
PySide6 window, the floor on this machine. The result is one JSON line on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QWidget

TICK_MS = 5
#: A tick at most this late counts as a responsive loop (about three frames at 60 Hz).
RESPONSIVE_MS = 50.0
#: Give up (and say so) when the window is not ready after this long.
GIVE_UP_S = 180.0


class StartupProbe(QObject):
    """Watches paints of one window and the lateness of a 5 ms timer."""

    def __init__(
        self,
        started_at: float,
        *,
        settle_s: float,
        is_main_window: Callable[[QWidget], bool],
        is_loaded: Callable[[], bool],
        finish: Callable[[], None],
        is_started: Callable[[], bool] = lambda: True,
    ) -> None:
        super().__init__()
        self.started_at = started_at
        self.settle_s = settle_s
        self.is_main_window = is_main_window
        self.is_loaded = is_loaded
        self.finish = finish
        self.is_started = is_started
        self.painted_at: float | None = None
        self.ready_at: float | None = None
        self.started_at_all: float | None = None  # the background start finished too
        self.max_stall_ms = 0.0
        self.gave_up = False
        self._last_tick = time.perf_counter()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self, app: QApplication) -> None:
        app.installEventFilter(self)
        self._last_tick = time.perf_counter()
        self._timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self.painted_at is None
            and event.type() == QEvent.Type.Paint
            and isinstance(watched, QWidget)
            and self.is_main_window(watched.window())
        ):
            self.painted_at = time.time()
        return False

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        late_ms = max(0.0, (now - self._last_tick) * 1000 - TICK_MS)
        self._last_tick = now
        wall = time.time()
        if self.painted_at is None:
            if wall - self.started_at > GIVE_UP_S:
                self._stop(gave_up=True)
            return
        done_at = None
        if self.ready_at is not None and self.started_at_all is not None:
            done_at = max(self.ready_at, self.started_at_all)
        if done_at is None or wall - done_at <= self.settle_s:
            self.max_stall_ms = max(self.max_stall_ms, late_ms)
        if self.ready_at is None and late_ms <= RESPONSIVE_MS and self.is_loaded():
            self.ready_at = wall
        if self.started_at_all is None and self.is_started():
            self.started_at_all = wall
        if done_at is not None and wall - done_at > self.settle_s:
            self._stop(gave_up=False)
        elif wall - self.started_at > GIVE_UP_S:
            self._stop(gave_up=True)

    def _stop(self, *, gave_up: bool) -> None:
        self._timer.stop()
        self.gave_up = gave_up
        self.finish()

    def report(self) -> dict:
        def since_start(at: float | None) -> float | None:
            return None if at is None else round(at - self.started_at, 3)

        return {
            "painted_s": since_start(self.painted_at),
            "ready_s": since_start(self.ready_at),
            "started_s": since_start(self.started_at_all),
            "max_stall_ms": round(self.max_stall_ms, 1),
            "gave_up": self.gave_up,
        }


def probe_app(data_dir: str, started_at: float, settle_s: float) -> dict:
    # What `acai-desktop --data-dir D` imports before the window, in the same order: the
    # command line with every command's parser, then the GUI.
    from acai_desktop import cli

    cli.build_parser()
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.ui.app import run_gui
    from acai_desktop.ui.app_controller import AppController
    from acai_desktop.ui.main_window import MainWindow

    probes: list[StartupProbe] = []

    def watch(app: QApplication, session: AppController) -> None:
        def loaded() -> bool:
            if not session.started:
                return False
            window = session.window
            # The user's conversations and first page of memories are on screen (the
            # assistant's services may still be starting behind them; `services_s`).
            shown = getattr(session, "profile_shown", None)
            if shown is None:  # a session that opens everything before showing data
                shown = session.assistant is not None and session.tasks.get("open") is None
            return shown and getattr(window.memories_model, "settled", True)

        probe = StartupProbe(
            started_at,
            settle_s=settle_s,
            is_main_window=lambda widget: isinstance(widget, MainWindow),
            is_loaded=loaded,
            finish=session.request_quit,
            # The assistant's services (model client, memory index, job runner) are up.
            is_started=lambda: session.assistant is not None,
        )
        probe.start(app)
        probes.append(probe)

    run_gui(Profile.at(data_dir), on_session=watch)
    return probes[0].report()


def probe_bare(started_at: float, settle_s: float) -> dict:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = QMainWindow()
    window.setCentralWidget(QLabel("Hello"))
    window.resize(1200, 800)
    probe = StartupProbe(
        started_at,
        settle_s=settle_s,
        is_main_window=lambda widget: widget is window,
        is_loaded=lambda: True,
        finish=app.quit,
    )
    probe.start(app)
    window.show()
    app.exec()
    return probe.report()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="startup_probe")
    parser.add_argument("kind", choices=("app", "bare"))
    parser.add_argument("--data-dir")
    parser.add_argument("--started-at", type=float, required=True)
    parser.add_argument("--settle", type=float, default=3.0)
    args = parser.parse_args(argv)
    if args.kind == "app":
        report = probe_app(args.data_dir, args.started_at, args.settle)
    else:
        report = probe_bare(args.started_at, args.settle)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
