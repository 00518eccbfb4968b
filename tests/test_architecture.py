"""The import rules of ARCHITECTURE §2 (the core never imports Qt nor the evaluation; the
product never imports benchmarks/, and the lab (acai_lab/) only for --self-test; the lab
never imports benchmarks/; the window never imports the store; the store never
imports the memory layer (both use the rules below them); the commands (MCP
among them) never import the store; command line >
commands > window > core; no cycle in the model client), kept in one place —
pyproject.toml's import-linter contracts — and checked by one checker, which is shown to
fail on planted violations. And no product module serves only the benchmarks."""

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
    "The product never imports the benchmarks",
    "The product imports the lab only for --self-test",
    "The lab never imports the benchmarks",
    "The core never imports the evaluation",
    "The UI never imports the store",
    "The commands never import the store",
    "Memory layer, store, rules",
    "Learning, memory, rules",
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
            "acai_desktop/ui/bench_hook.py": "from benchmarks import startup\n",
            "benchmarks/startup.py": "",
            # The one import of the lab the product may make; any other breaks the rule.
            "acai_desktop/commands/self_test.py": (
                "def run():\n    from acai_lab import self_test\n"
            ),
            "acai_lab/self_test.py": "",
            "acai_desktop/ui/refcount_check.py": "from acai_lab import none_refcount\n",
            "acai_lab/none_refcount.py": "",
            "acai_lab/soak.py": "from benchmarks import startup\n",
            "acai_desktop/ui/widget.py": "from acai_desktop.core.store import database\n",
            "acai_desktop/commands/jobs.py": "from acai_desktop.core.store.jobs import queue\n",
            "acai_desktop/core/store/jobs.py": "",
            "acai_desktop/core/store/database.py": "",
            "acai_desktop/core/store/conversation_search.py": (
                "from acai_desktop.core.memory.query import tokenize\n"
            ),
            "acai_desktop/core/memory/query.py": "",
            "acai_desktop/core/memory/topics.py": "from acai_desktop.core.learning import jobs\n",
            "acai_desktop/core/learning/jobs.py": "",
            # A rule that calls into learning: breaks only learning > memory > rules.
            "acai_desktop/core/rules/words.py": "from acai_desktop.core.learning import jobs\n",
            "acai_desktop/core/model.py": "from PySide6.QtCore import QObject\n",
            "acai_desktop/core/runtime.py": "from acai_desktop.evaluation import harness\n",
            "acai_desktop/evaluation/harness.py": "",
            "acai_desktop/core/models/client.py": (
                "from acai_desktop.core.models import structured\n"
            ),
            "acai_desktop/core/models/structured.py": (
                "from acai_desktop.core.models import client\n"
            ),
            "acai_desktop/core/models/replies.py": "",
        },
    )
    result = lint_imports(tmp_path, tmp_path)
    assert result.returncode != 0, result.stdout
    assert contract_results(result.stdout) == dict.fromkeys(CONTRACTS, "BROKEN"), result.stdout


def modules_reached(graph, roots: set[str]) -> set[str]:
    reached, to_visit = set(), list(roots)
    while to_visit:
        module = to_visit.pop()
        if module in reached:
            continue
        reached.add(module)
        to_visit += graph.find_modules_directly_imported_by(module)
        # A package's __init__ runs before any module in it.
        parent = module.rpartition(".")[0]
        while parent:
            to_visit.append(parent)
            parent = parent.rpartition(".")[0]
    return reached


def test_every_product_module_is_used_by_the_product():
    """Issue 21: code only a benchmark or a developer evaluation runs lives in benchmarks/,
    outside the installed package. Every module of acai_desktop is imported (at any depth,
    inside functions too) from what the app runs: its entry point and its commands."""
    import grimp

    from acai_desktop.cli import COMMAND_MODULES

    graph = grimp.build_graph("acai_desktop", cache_dir=None)
    roots = {"acai_desktop.__main__", "acai_desktop.cli"}
    roots |= {f"acai_desktop.commands.{name}" for name in COMMAND_MODULES}
    reached = modules_reached(graph, roots)
    assert "acai_desktop.core.assistant" in reached  # the walk followed the imports
    unused = sorted(graph.modules - reached)
    assert not unused, f"imported by nothing the app runs (move to benchmarks/?): {unused}"


def test_benchmarks_are_not_commands_of_the_app(capsys):
    """``bench`` and ``eval`` are ``python -m benchmarks`` commands, not the app's."""
    import pytest

    from acai_desktop.cli import build_parser

    for command in (["bench", "retrieval"], ["eval", "policy"]):
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(command)
        assert exit_info.value.code == 2
        assert "invalid choice" in capsys.readouterr().err


def import_cycles(graph) -> list[list[str]]:
    """The groups of modules that import one another in a ring (strongly connected
    components of the import graph, any import counted: inside functions and under
    TYPE_CHECKING too), each sorted."""
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(root: str) -> None:
        # Tarjan's algorithm, iteratively: the graph is deeper than the recursion limit.
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        order[root] = lowest[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            for other in imported:
                if other not in order:
                    order[other] = lowest[other] = len(order)
                    stack.append(other)
                    on_stack.add(other)
                    work.append(
                        (other, iter(sorted(graph.find_modules_directly_imported_by(other))))
                    )
                    break
                if other in on_stack:
                    lowest[module] = min(lowest[module], order[other])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowest[parent] = min(lowest[parent], lowest[module])
                if lowest[module] == order[module]:
                    ring = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        ring.append(member)
                        if member == module:
                            break
                    if len(ring) > 1:
                        cycles.append(sorted(ring))

    for module in sorted(graph.modules):
        if module not in order:
            visit(module)
    return cycles


def test_no_modules_import_one_another_in_a_ring(tmp_path, monkeypatch):
    """Issue 41: no import cycle between the product's modules (a type hint counts: the
    pane builders take the window as its parts, Settings its app controls)."""
    import grimp

    assert import_cycles(grimp.build_graph("acai_desktop", cache_dir=None)) == []
    plant(
        tmp_path,
        {
            "ring/__init__.py": "",
            "ring/a.py": "from ring import b\n",
            "ring/b.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ring import c\n"
            ),
            "ring/c.py": "def later():\n    from ring import a\n",
            "ring/d.py": "from ring import a\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles(grimp.build_graph("ring", cache_dir=None)) == [
        ["ring.a", "ring.b", "ring.c"]
    ]
