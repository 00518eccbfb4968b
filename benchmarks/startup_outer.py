"""Start-up measured from outside: open and quit, each as a whole process.

What a user pays for a start is everything from typing ``acai-desktop`` to a window that
is ready: the interpreter, the entry point, the command line, the imports, the profile
and, at the end, shutting down. :mod:`benchmarks.ui.startup_probe` times from inside up
to the first ready moment; this times the whole process from outside:

* the app: ``acai-desktop gui --quit-after-ms 1`` on a fresh, empty data directory
  each run, or on a copy of an existing profile (``profile``: its schema made, its
  data there) made before the run (the ``acai-desktop`` launcher beside this Python,
  else ``python -m acai_desktop``; or any program given, such as the frozen bundle);
* the bare window: a PySide6 main window that shows, quits 1 ms into its event loop and
  exits, started the same way (``python -c``), or a program given (the frozen floor).

Runs alternate app and bare, so a busy moment of the machine hits both, after one
untimed pair that fills Python's bytecode cache (an installed app has its modules
compiled); the figures are the medians of wall-clock seconds from spawn to exit, and
their ratio.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The bare window: what any PySide6 program pays to show a window and quit.
BARE_WINDOW = """\
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.setCentralWidget(QLabel("Hello"))
window.resize(1200, 800)
window.show()
QTimer.singleShot(1, app.quit)
sys.exit(app.exec())
"""
QUIT_AFTER_MS = 1
#: A start that takes longer than this is broken, not slow.
TIMEOUT_S = 300


def default_app_command() -> list[str]:
    launcher = Path(sys.executable).with_name("acai-desktop")
    return [str(launcher)] if launcher.exists() else [sys.executable, "-m", "acai_desktop"]


def default_bare_command() -> list[str]:
    return [sys.executable, "-c", BARE_WINDOW]


def startup_environment() -> dict[str, str]:
    """This process's environment, offscreen without a display, and with Python's
    bytecode cache on: an installed app starts from compiled modules (pip and the bundle
    compile them), so a shell that turned the cache off must not make every run compile
    the whole program again."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def time_process(command: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to exit of ``command``; a failed run raises, naming why."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"{command[0]} exited with {done.returncode}: {done.stderr.strip()[-2000:]}"
        )
    return seconds


def measure_outer(
    runs: int,
    *,
    app: list[str] | None = None,
    bare: list[str] | None = None,
    profile: Path | None = None,
) -> dict:
    """``runs`` alternating pairs of whole-process starts; medians and their ratio.
    ``profile``: each app run opens a fresh copy of it (copied untimed) instead of an
    empty data directory."""
    app = app or default_app_command()
    bare = bare or default_bare_command()
    env = startup_environment()
    app_times, bare_times = [], []
    command = [*app, "gui", "--quit-after-ms", str(QUIT_AFTER_MS)]
    with tempfile.TemporaryDirectory(prefix="acai-bench-startup-outer-") as directory:
        for run in range(-1, runs):  # run -1 warms the bytecode and disk caches, untimed
            data_dir = Path(directory) / f"profile-{run}"  # fresh every run
            if profile is not None:
                shutil.copytree(profile, data_dir)
            app_s = time_process([*command, "--data-dir", str(data_dir)], env)
            bare_s = time_process(bare, env)
            if run >= 0:
                app_times.append(app_s)
                bare_times.append(bare_s)
    app_s = round(statistics.median(app_times), 3)
    bare_s = round(statistics.median(bare_times), 3)
    return {
        "outer_app_s": app_s,
        "outer_bare_s": bare_s,
        "outer_ratio": round(app_s / bare_s, 2),
        "outer_runs": runs,
        "outer_profile": "existing" if profile is not None else "fresh",
        "outer_app_s_all": [round(t, 3) for t in app_times],
        "outer_bare_s_all": [round(t, 3) for t in bare_times],
    }
