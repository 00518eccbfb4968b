"""After the window has shut down, the program ends at once, without tearing the
interpreter down (which took longer than opening the window; issue 22 item 7), and
without losing what it printed or its exit code."""

from __future__ import annotations

import subprocess
import sys

from tests.support.timeouts import PROGRAM_TIMEOUT_S

# The window itself is replaced by a run_gui that returns 3 at once (4 if it was not
# told that the process ends after it, so it would collect its garbage in vain): this is
# about what happens after it returns.
PROGRAM = """
import argparse, atexit, sys, types
sys.modules["acai_desktop.ui.app"] = types.SimpleNamespace(
    run_gui=lambda profile, quit_after_ms=None, process_ends=False: 3 if process_ends else 4
)
from acai_desktop.commands import gui
atexit.register(lambda: open(sys.argv[1], "w").write("torn down"))
print("printed before the end")  # buffered: stdout is a pipe
sys.exit(gui.run(argparse.Namespace(data_dir=sys.argv[2], quit_after_ms=None)))
"""


def test_the_window_command_ends_without_interpreter_teardown(tmp_path):
    marker = tmp_path / "teardown-ran"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(marker), str(tmp_path / "profile")],
        capture_output=True,
        text=True,
        timeout=PROGRAM_TIMEOUT_S,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "printed before the end\n"
    assert not marker.exists()  # no atexit handler, no teardown: the process just ended
