"""A profile whose every model role talks to the in-process scripted server.

Used by ``--self-test`` and ``bench soak``: the real SDK, the real HTTP stack and the real
processors, with answers nobody has to pay for or wait on, and no key from the keyring.
"""

from __future__ import annotations

import os

from acai_desktop.core.models.presets import ProviderName, RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile

SCRIPTED_MODELS = RoleModels(
    chat="scripted-chat",
    triage="scripted-triage",
    extraction="scripted-extraction",
    summary="scripted-summary",
    embedding="scripted-embedding",
)
#: keyring's own switch: this process never asks the system keyring (nor unlocks it).
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}


def use_scripted_model(profile: Profile, base_url: str, **overrides) -> ModelSettings:
    """Point every role of ``profile`` at the scripted server at ``base_url``; embeddings
    stay local (WordLlama), as by default."""
    values = {"base_url": base_url, "models": SCRIPTED_MODELS}
    values.update(overrides)
    settings = ModelSettings.for_preset(ProviderName.CUSTOM, **values)
    save_model_settings(profile.ensure().settings_path, settings)
    return settings


def keep_away_from_the_keyring() -> None:
    """A scripted run needs no API key; don't read the user's (or prompt to unlock)."""
    os.environ.update(NO_KEYRING)
