"""A bundle has no ``python -m``: the frozen app reaches `bench startup`'s probe through
a hidden first argument, as it reaches the local model server (tests/core/
test_frozen_launcher.py). packaging/build.sh runs the whole path in the real bundle."""

import subprocess
import sys

import pytest

from acai_desktop.cli import main
from acai_desktop.commands import STARTUP_PROBE_FLAG


def test_the_hidden_flag_reaches_the_startup_probe(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([STARTUP_PROBE_FLAG, "--help"])
    assert exit_info.value.code == 0
    assert "usage: startup_probe" in capsys.readouterr().out


def test_the_hidden_flag_is_not_a_listed_option():
    shown = subprocess.run(
        [sys.executable, "-m", "acai_desktop", "--help"], capture_output=True, text=True
    )
    assert shown.returncode == 0 and STARTUP_PROBE_FLAG not in shown.stdout
