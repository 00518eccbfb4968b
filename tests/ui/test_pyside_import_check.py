"""The check PySide6 runs on every module imported after it gives PySide's answer
without reading the module's source through ``inspect`` (a tenth of the window's
imports; ui/pyside_import_check.py)."""

from __future__ import annotations

import inspect
import json
import logging
import sys

from acai_desktop.ui import pyside_import_check

MODULES = ("acai_desktop.ui.theme", "acai_desktop.core.records", "json", "logging", "inspect")


def test_the_window_s_package_installs_the_cheaper_check():
    import acai_desktop.ui  # noqa: F401  (installs it)

    feature = sys.modules[pyside_import_check.FEATURE_MODULE]
    assert getattr(feature, pyside_import_check.CHECK_NAME).reads_bytes


def test_it_answers_as_pyside_without_inspect(monkeypatch):
    import acai_desktop.core.records.conversations
    import acai_desktop.core.records.jobs
    import acai_desktop.core.records.memories
    import acai_desktop.core.records.projects
    import acai_desktop.ui.theme  # noqa: F401

    feature = sys.modules[pyside_import_check.FEATURE_MODULE]
    check = getattr(feature, pyside_import_check.CHECK_NAME)
    assert check.reads_bytes
    modules = [sys.modules[name] for name in MODULES] + [json, logging]
    # PySide's own answer: the word in the module's source, read through inspect.
    expected = [
        "PySide6" in inspect.getsource(module) if hasattr(module, "__file__") else False
        for module in modules
    ]
    assert expected[0] and not any(expected[1:])

    def refuse(module):
        raise AssertionError("read through inspect")

    monkeypatch.setattr(inspect, "getsource", refuse)
    assert [check(module) for module in modules] == expected
    assert pyside_import_check.install() is False  # once only
