"""Fixtures for GUI tests: the scripted model server with the rule-based fake model, and
spare references to None (see test_none_refcount)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from acai_lab.scripted_model import fake_model
from acai_lab.strict_server import StrictOpenAIServer
from tests.support.gui import shown_main_window


@pytest.fixture
def window(qtbot, qapp):
    """The main window on its own (no session), themed, shown at its default size."""
    return shown_main_window(qtbot, qapp)


@pytest.fixture
def fake_openai() -> Iterator[StrictOpenAIServer]:
    with StrictOpenAIServer() as server:
        server.responder = fake_model
        yield server


@pytest.fixture(autouse=True)
def spare_none_references() -> Iterator[None]:
    """A Qt binding that loses references to None (PySide6 6.12.0 on Python 3.11) would
    abort the whole run with "none_dealloc" long before test_none_refcount reports it;
    spare references, given back after each test, keep the run going to that report."""
    from acai_lab.none_refcount import SpareNoneReferences

    with SpareNoneReferences():
        yield
