"""Helpers for the tests of the managed local model servers' processes: whether a process
is still alive, stand-in programs, and an app killed while it holds a server."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPOSITORY = Path(__file__).parents[2]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by a parent that is itself gone) counts as gone.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return True
    return state != "Z"


def wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return not alive(pid)


def stand_in_python(tmp_path: Path, body: str) -> str:
    """An executable that runs ``body`` with the real interpreter, whatever arguments it gets."""
    script = tmp_path / "stand-in-python"
    script.write_text(f"#!/bin/sh\nexec '{sys.executable}' -c \"{body}\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def server_of_a_killed_app(
    tmp_path: Path, *, background: bool = False, suspend: bool = False
) -> int:
    """Run an app (its own process) that starts the built-in model's server (a background
    one if ``background``, then suspended if ``suspend``), SIGKILL the app so it can stop
    nothing, and return the server's pid (alive when the app was killed)."""
    pid_file = tmp_path / "server.pid"
    app = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from acai_desktop.core.models.local_server import LocalModelServer

        async def main():
            server = LocalModelServer(
                log_path=Path({str(tmp_path / "server.log")!r}), background={background!r}
            )
            await server.start()
            if {suspend!r}:
                assert server.suspend()
            # Whole or not at all: the test reads it as soon as it exists.
            Path({str(pid_file) + ".part"!r}).write_text(str(server.pid))
            Path({str(pid_file) + ".part"!r}).replace({str(pid_file)!r})
            await asyncio.sleep(600)

        asyncio.run(main())
        """
    )
    process = subprocess.Popen([sys.executable, "-c", app], cwd=REPOSITORY)
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        assert pid_file.exists(), "the app never reported its server"
        server_pid = int(pid_file.read_text())
        assert alive(server_pid)
    finally:
        process.kill()  # SIGKILL: the app can't resume or stop anything
        process.wait()
    return server_pid
