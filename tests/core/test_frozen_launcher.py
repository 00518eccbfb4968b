"""In a PyInstaller bundle the app starts its local model server by running itself."""

import subprocess
import sys

import pytest

from acai_desktop.cli import main
from acai_desktop.core.models.local_server import SERVE_LOCAL_MODEL_FLAG, LocalModelServer


def test_installed_app_uses_python_dash_m():
    server = LocalModelServer(python="/usr/bin/python3")
    assert server.launcher() == [
        "/usr/bin/python3",
        "-m",
        "acai_desktop.core.models.local_server_process",
    ]


def test_frozen_app_runs_itself_with_the_hidden_flag(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert LocalModelServer().launcher() == [sys.executable, SERVE_LOCAL_MODEL_FLAG]


def test_the_hidden_flag_reaches_the_server_entry_point():
    with pytest.raises(SystemExit, match="usage: local_server_process"):
        main([SERVE_LOCAL_MODEL_FLAG])


def test_the_hidden_flag_is_not_a_listed_command():
    shown = subprocess.run(
        [sys.executable, "-m", "acai_desktop", "--help"], capture_output=True, text=True
    )
    assert SERVE_LOCAL_MODEL_FLAG not in shown.stdout
