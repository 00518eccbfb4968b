"""The core never imports Qt (ARCHITECTURE §2): checked two ways, each shown to fail
on a planted violation."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "acai_desktop" / "core"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qasync", "acai_desktop.ui")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@dataclass(frozen=True)
class Violation:
    path: Path
    line: int
    module: str


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.AST, module: str, is_package: bool):
    """(line, absolute module name) for every import in ``tree``, relative ones
    resolved, plus ``importlib.import_module("...")`` / ``__import__("...")`` calls."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            yield node.lineno, prefix
            for alias in node.names:
                yield node.lineno, f"{prefix}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args:
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            first = node.args[0]
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if name in ("import_module", "__import__") and literal:
                yield node.lineno, first.value


def is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def forbidden_imports(package_dir: Path, root: Path) -> list[Violation]:
    """Every import of a forbidden module by a file under ``package_dir``."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module = module_name(path, root)
        for line, imported in imported_modules(tree, module, path.name == "__init__.py"):
            if is_forbidden(imported):
                found.append(Violation(path, line, imported))
    return found


def plant_package(root: Path, name: str, core_files: dict[str, str]) -> Path:
    """A throw-away package ``name`` with ``core/`` and ``ui/`` sub-packages."""
    for sub in ("", "core", "ui"):
        directory = root / name / sub
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "__init__.py").write_text("")
    for file, source in core_files.items():
        (root / name / "core" / file).write_text(textwrap.dedent(source))
    return root / name / "core"


# ------------------------------------------------------------------- the checks


def test_core_imports_no_qt():
    assert CORE.is_dir()
    assert list(CORE.rglob("*.py")), "the scanner found no core modules to check"
    violations = forbidden_imports(CORE, REPO)
    assert violations == [], "\n".join(
        f"{v.path.relative_to(REPO)}:{v.line} imports {v.module}" for v in violations
    )


def test_import_contract_is_kept():
    result = subprocess.run(
        [str(LINT_IMPORTS)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "The core never imports Qt KEPT" in result.stdout


# ----------------------------------------------- the checks can fail (self-check)


def test_scanner_finds_planted_violations(tmp_path):
    core = plant_package(
        tmp_path,
        "acai_desktop",
        {
            "clean.py": "import asyncio\nfrom acai_desktop.core import errors\n",
            "direct.py": "from PySide6.QtCore import QObject\n",
            "relative.py": "from ..ui import main_window\n",
            "hidden.py": """
                def later():
                    import qasync
                    import importlib
                    return importlib.import_module("PySide6.QtWidgets")
            """,
        },
    )
    found = {(v.path.name, v.module) for v in forbidden_imports(core, tmp_path)}
    assert found == {
        ("direct.py", "PySide6.QtCore"),
        ("direct.py", "PySide6.QtCore.QObject"),
        ("relative.py", "acai_desktop.ui"),
        ("relative.py", "acai_desktop.ui.main_window"),
        ("hidden.py", "qasync"),
        ("hidden.py", "PySide6.QtWidgets"),
    }


def test_import_linter_breaks_on_planted_violation(tmp_path):
    plant_package(tmp_path, "plantedpkg", {"bad.py": "from plantedpkg.ui import thing\n"})
    (tmp_path / "plantedpkg" / "ui" / "thing.py").write_text("")
    config = tmp_path / "importlinter.ini"
    config.write_text(
        textwrap.dedent(
            """
            [importlinter]
            root_package = plantedpkg

            [importlinter:contract:core-no-ui]
            name = Planted core never imports ui
            type = forbidden
            source_modules = plantedpkg.core
            forbidden_modules = plantedpkg.ui
            """
        )
    )
    result = subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout
