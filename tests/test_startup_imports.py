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
    "acai_desktop.core.conversations.chat_import.budget",  # File > Import
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


#: sqlite-utils and what it imports: opening a profile needs none of them (issue 22).
STORE_LIBRARIES = ("numpy", "sqlite_utils", "click", "dateutil", "pluggy")


def test_opening_a_profile_imports_no_store_library(tmp_path):
    """What the window shows first (the profile's conversations, the memory panel's first
    page) comes from ``core.profile.data``, opened before anything is on screen: a fresh
    profile (its schema made) and an existing one, opened again. numpy was a third of
    loading it once; sqlite-utils, with click, dateutil and pluggy, a seventh of the
    whole start (issue 22)."""
    probe = (
        "import asyncio, json, sys\n"
        "import acai_desktop.cli, acai_desktop.ui.app\n"
        "from acai_desktop.core.profile.paths import Profile\n"
        "from acai_desktop.core.profile.data import open_profile_data\n"
        "async def open_twice(profile):\n"
        "    for _ in range(2):\n"
        "        data = await open_profile_data(profile)\n"
        "        await data.list_conversations()\n"
        "        await data.aclose()\n"
        "asyncio.run(open_twice(Profile.at(sys.argv[1])))\n"
        f"print(json.dumps([m for m in {STORE_LIBRARIES!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "profile")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
    assert (tmp_path / "profile" / "acai.sqlite3").exists()


def test_the_window_s_command_line_builds_no_other_command():
    """``acai-desktop`` and ``acai-desktop gui …`` build only the window's command (all
    eight commands' parsers were built on every start); ``--help`` still lists all."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from acai_desktop.cli import build_parser\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.startswith('acai_desktop.commands.')"
        " and m.rsplit('.', 1)[1] in ('memories', 'docs', 'chat', 'jobs', 'mcp', 'import_chats'))\n"
        "build_parser([]).parse_args([])\n"
        "window_argv = ['gui', '--quit-after-ms', '1']\n"
        "build_parser(window_argv).parse_args(window_argv)\n"
        "window = loaded()\n"
        "shown = io.StringIO()\n"
        "with contextlib.redirect_stdout(shown), contextlib.suppress(SystemExit):\n"
        "    build_parser(['--help']).parse_args(['--help'])\n"
        "print(json.dumps([window, loaded(), 'import' in shown.getvalue()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    window, everything, listed = json.loads(done.stdout.splitlines()[-1])
    assert window == []
    assert len(everything) == 6 and listed
