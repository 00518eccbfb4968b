"""A whole assistant on a temp profile, talking to the scripted server with the fake model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from acai_desktop.core.assistant import Assistant, open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.settings import save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_lab.scripted_openai import FakeOpenAIServer
from tests.core.conftest import settings_for
from tests.support.memory import shared_embedder


def configure_profile(data_dir: Path, server: FakeOpenAIServer, **overrides) -> Profile:
    """Save model settings that point every role at the scripted server."""
    profile = Profile.at(data_dir).ensure()
    save_model_settings(profile.settings_path, settings_for(server, **overrides))
    return profile


@asynccontextmanager
async def running_assistant(
    data_dir: Path, server: FakeOpenAIServer, *, start_jobs: bool = True, **overrides
) -> AsyncIterator[Assistant]:
    profile = configure_profile(data_dir, server, **overrides)
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=start_jobs, offline_embedder=shared_embedder()
    )
    try:
        yield assistant
    finally:
        await assistant.close()
