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


#: Opened only when the user asks for them: their modules load then, not before the
#: first paint (each start paid for all of them; issue 22, start-up from outside).
ON_DEMAND = (
    "acai_desktop.ui.widgets.history_dialogs",  # memory details, answer sources
    "acai_desktop.core.memory.explain",  # what those two dialogs explain
    "acai_desktop.ui.widgets.search_dialog",
    "acai_desktop.ui.widgets.large_answer_dialogs",  # the whole answer, a wide table
    "acai_desktop.ui.widgets.settings_dialog",
    "acai_desktop.ui.widgets.first_start_dialog",
    "acai_desktop.ui.widgets.memory_health",
    "acai_desktop.core.chat_import.budget",  # File > Import
)


def test_the_window_s_modules_leave_the_dialogs_until_they_open():
    probe = (
        "import json, sys\n"
        "import acai_desktop.cli, acai_desktop.ui.app\n"
        f"print(json.dumps([m for m in {ON_DEMAND!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_opening_the_profile_s_data_imports_no_numpy():
    """What the window shows first (the profile's conversations, the memory panel's first
    page) comes from ``core.profile_data``; numpy was a third of loading it, for
    sqlite-utils' optional numpy column types and a store module's vectors (issue 22)."""
    probe = (
        "import json, sys\n"
        "import acai_desktop.cli, acai_desktop.ui.app\n"
        "import acai_desktop.core.profile_data\n"
        "print(json.dumps(['numpy' in sys.modules, 'sqlite_utils' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == [False, True]
