"""A throw-away profile for an evaluation run, optionally with the model of a real one.

Evaluations write memories, so they never run in the user's profile: each gets a fresh
temporary directory, removed afterwards whatever happens (a Stop, an error). Given
``model_of``, the temporary profile is set up to talk to that profile's model: its saved
model settings are copied, and its API key is made readable there (found in the system
keyring as it is; from the 0600 fallback file, copied into the temporary profile's own
0600 file, which goes with the directory). Nothing of ``model_of`` is written.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import load_model_settings, save_model_settings
from acai_desktop.core.profile.paths import Profile


def copy_model(source: Profile, target: Profile) -> None:
    """``target`` uses ``source``'s model settings and key (blocking: keyring, files)."""
    settings = load_model_settings(source.settings_path)
    if settings is None:
        return  # nothing configured: the temporary profile does what a first start does
    save_model_settings(target.ensure().settings_path, settings)
    provider = str(settings.provider)
    if provider == ProviderName.LOCAL:
        return
    key = SecretStore(source.data_dir).get_api_key(provider)
    if not key:
        return
    target_secrets = SecretStore(target.data_dir)
    if target_secrets.get_api_key(provider) != key:  # not in the keyring: the file's copy
        _write_fallback_key(target_secrets, provider, key)


def _write_fallback_key(secrets: SecretStore, provider: str, key: str) -> None:
    from keyring.backends.fail import Keyring as NoKeyring

    # A store without a keyring writes the owner-only file of the temporary profile,
    # never the user's keyring entry.
    SecretStore(secrets.data_dir, backend=NoKeyring()).set_api_key(provider, key)


@asynccontextmanager
async def temporary_profile(prefix: str, model_of: Profile | None = None) -> AsyncIterator[Profile]:
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        profile = Profile.at(Path(directory))
        if model_of is not None:
            await asyncio.to_thread(copy_model, model_of, profile)
        yield profile
