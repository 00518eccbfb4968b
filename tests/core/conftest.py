"""Fixtures for core tests: the scripted OpenAI-compatible server and clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from acai_desktop.core.models.call_limits import ClientTimeouts
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName, RoleModels
from acai_desktop.core.models.settings import ModelSettings
from acai_lab.scripted_openai import FakeOpenAIServer
from acai_lab.strict_server import StrictOpenAIServer

#: Small timeouts keep fault tests fast; retries still happen (the SDK's own backoff).
FAST_TIMEOUTS = ClientTimeouts(connect=1.0, read=2.0, write=2.0, pool=2.0)

TEST_MODELS = RoleModels(
    chat="fake-chat",
    triage="fake-triage",
    extraction="fake-extraction",
    summary="fake-summary",
    embedding="fake-embedding",
)


@pytest.fixture
def fake_openai() -> Iterator[StrictOpenAIServer]:
    with StrictOpenAIServer() as server:
        yield server


def settings_for(server: FakeOpenAIServer, **overrides) -> ModelSettings:
    values = {"base_url": server.base_url, "models": TEST_MODELS}
    values.update(overrides)
    return ModelSettings.for_preset(ProviderName.CUSTOM, **values)


def client_for(server: FakeOpenAIServer, *, timeouts: ClientTimeouts = FAST_TIMEOUTS, **kw):
    """A ModelClient on the scripted server; create it inside the test's event loop."""
    settings_overrides = {k: kw.pop(k) for k in list(kw) if k in ModelSettings.model_fields}
    return ModelClient(settings_for(server, **settings_overrides), timeouts=timeouts, **kw)
