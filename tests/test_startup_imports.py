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


def test_the_window_s_modules_import_no_heavy_library():
    """What the window imports before it paints (the GUI's modules) leaves the model
    client, the database layer and numpy to the background import the window starts after
    painting; an action module importing a core service at its top undid that once."""
    probe = (
        "import json, sys\n"
        "import acai_desktop.cli, acai_desktop.ui.app\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
