"""The window is a layout: its only signals are its own (no relay of a widget's), and the
controllers, built with it, never check for a missing window."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Signal

import acai_desktop.ui.controllers
from acai_desktop.ui.main_window import MainWindow

CONTROLLERS = Path(acai_desktop.ui.controllers.__file__).parent


def test_the_window_declares_only_its_own_signals():
    signals = {name for name, value in vars(MainWindow).items() if isinstance(value, Signal)}
    assert signals == {"quit_requested", "panels_changed"}


def test_no_controller_checks_for_a_missing_window():
    checks = []
    for path in sorted(CONTROLLERS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.ops[0], ast.Is | ast.IsNot)
                and "window" in ast.unparse(node.left)
            ):
                checks.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert checks == []
