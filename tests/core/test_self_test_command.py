"""``acai-desktop --self-test`` where the lab is not installed (the wheel ships the command
but not acai_lab): it says where the check comes from, with no traceback. Where the lab is
present, tests/e2e/test_self_test.py runs it."""

from __future__ import annotations

import json
import subprocess
import sys

from acai_desktop.cli import build_parser
from acai_desktop.commands import self_test


def test_without_the_lab_the_self_test_says_where_it_comes_from(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "acai_lab", None)  # as in an installed wheel
    args = build_parser().parse_args(["--data-dir", str(tmp_path), "--self-test"])

    assert self_test.run(args) == 2

    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == self_test.LAB_MISSING
    assert not list(tmp_path.iterdir())  # nothing was opened


def test_the_command_line_imports_the_lab_only_when_the_self_test_runs():
    probe = (
        "import json, sys\n"
        "from acai_desktop.cli import build_parser\n"
        "import acai_desktop.commands.self_test\n"
        "build_parser()\n"
        "print(json.dumps([m for m in sys.modules if m.split('.')[0] == 'acai_lab']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
