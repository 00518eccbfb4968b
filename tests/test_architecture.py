"""The import rules of ARCHITECTURE §2 (the core never imports Qt nor the evaluation; the
window never imports the store; command line > commands > window > core; no cycle in the
model client), kept in one place — pyproject.toml's import-linter contracts — and checked
by one checker, which is shown to fail on planted violations."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACTS = (
    "The core never imports Qt",
    "The core never imports the evaluation",
    "The UI never imports the store",
    "Command line, commands, window, core",
    "Model client, structured output, reply types",
)


def lint_imports(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(cwd / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(pythonpath)},
    )


def contract_results(output: str) -> dict[str, str]:
    return dict(re.findall(r"^(.+?) (KEPT|BROKEN)\b", output, flags=re.MULTILINE))


def plant(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for package in path.relative_to(root).parents:
            if package != Path("."):
                (root / package / "__init__.py").touch()
        path.write_text(source)


def test_import_contracts_are_kept():
    result = lint_imports(REPO, REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert contract_results(result.stdout) == dict.fromkeys(CONTRACTS, "KEPT")


def test_the_contracts_break_on_planted_violations(tmp_path):
    """The project's own contracts, over a small package that breaks each of them."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    plant(
        tmp_path,
        {
            "acai_desktop/cli.py": "from acai_desktop.commands import gui\n",
            "acai_desktop/commands/gui.py": "from acai_desktop.cli import main\n",
            "acai_desktop/ui/startup_probe.py": "from acai_desktop import cli\n",
            "acai_desktop/ui/widget.py": "from acai_desktop.core.store import database\n",
            "acai_desktop/core/store/database.py": "",
            "acai_desktop/core/model.py": "from PySide6.QtCore import QObject\n",
            "acai_desktop/core/runtime.py": "from acai_desktop.evaluation import harness\n",
            "acai_desktop/evaluation/harness.py": "",
            "acai_desktop/core/llm/client.py": "from acai_desktop.core.llm import structured\n",
            "acai_desktop/core/llm/structured.py": "from acai_desktop.core.llm import client\n",
            "acai_desktop/core/llm/replies.py": "",
        },
    )
    result = lint_imports(tmp_path, tmp_path)
    assert result.returncode != 0, result.stdout
    assert contract_results(result.stdout) == dict.fromkeys(CONTRACTS, "BROKEN"), result.stdout
