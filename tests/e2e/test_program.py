"""The real program, started as a process the way a user or a launcher starts it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import acai_desktop
from acai_desktop.core.profile.paths import DATABASE_FILE

PROGRAM = str(Path(sys.executable).with_name("acai-desktop"))
# Generous: a slow CI machine loads Qt and numpy in a few seconds; this is a hang guard.
PROCESS_TIMEOUT_S = 120


def run_program(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PROGRAM, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=PROCESS_TIMEOUT_S,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
    )


def assert_clean_exit(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def test_version():
    result = run_program("--version")
    assert_clean_exit(result)
    assert result.stdout.strip() == f"acai-desktop {acai_desktop.__version__}"


def test_help_lists_the_gui_command():
    result = run_program("--help")
    assert_clean_exit(result)
    assert "gui" in result.stdout
    assert "--data-dir" in result.stdout
    gui_help = run_program("gui", "--help")
    assert_clean_exit(gui_help)
    assert "--quit-after-ms" in gui_help.stdout


def test_gui_starts_and_quits_by_itself(tmp_path):
    data_dir = tmp_path / "profile"
    result = run_program("--data-dir", str(data_dir), "gui", "--quit-after-ms", "100")
    assert_clean_exit(result)
    assert (data_dir / DATABASE_FILE).is_file()


def test_default_command_is_the_gui(tmp_path):
    data_dir = tmp_path / "profile"
    # The delay counts from the moment the profile is open, however busy the machine.
    result = run_program("--data-dir", str(data_dir), env={"ACAI_DESKTOP_QUIT_AFTER_MS": "100"})
    assert_clean_exit(result)
    assert (data_dir / DATABASE_FILE).is_file()


def test_sigterm_shuts_the_window_down_cleanly(tmp_path):
    data_dir = tmp_path / "profile"
    process = subprocess.Popen(
        [PROGRAM, "--data-dir", str(data_dir)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    try:
        database = data_dir / DATABASE_FILE
        deadline = time.monotonic() + PROCESS_TIMEOUT_S
        while not database.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "the window never opened its profile"
            time.sleep(0.1)
        time.sleep(0.5)  # let the window show, so the signal lands in the running loop
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=PROCESS_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    # Shut-down closed the store, which folds the write-ahead log back in.
    wal = database.with_name(database.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_bad_smoke_setting_is_a_clean_error(tmp_path):
    result = run_program("--data-dir", str(tmp_path), env={"ACAI_DESKTOP_QUIT_AFTER_MS": "soon"})
    assert result.returncode == 2
    assert "ACAI_DESKTOP_QUIT_AFTER_MS must be a whole number" in result.stderr
    assert "Traceback" not in result.stderr
