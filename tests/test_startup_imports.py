"""Every start of the app builds the whole command line before the window opens, so
what the command modules import at their top is paid on every start: it must not be
the model client, the database layer or numpy (the window loads those after it
paints; see ``bench startup``). A fresh interpreter, so nothing is imported already."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("openai", "httpx", "pydantic", "numpy", "sqlite_utils", "wordllama", "pyqtgraph")


def test_building_the_command_line_imports_no_heavy_library():
    probe = (
        "import json, sys\n"
        "from acai_desktop.cli import build_parser\n"
        "build_parser()\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
