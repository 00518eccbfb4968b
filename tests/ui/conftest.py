"""Fixtures for GUI tests: the scripted model server with the rule-based fake model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_model import fake_model
from tests.support.fake_openai import FakeOpenAIServer


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        server.responder = fake_model
        yield server
