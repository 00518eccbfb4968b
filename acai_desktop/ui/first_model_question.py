"""The first start's question: no model settings are saved and none came on the command
line, so the window shows what this computer offers, each option for what it is, and
saves the user's pick. Put off, nothing is saved and the window opens without a model:
the window never picks a model for the user."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.models.detection import Detect
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.ui.main_window import MainWindow

LOOKING_FOR_MODELS = "Looking for models on this computer…"


async def ask_for_a_first_model(
    window: MainWindow,
    profile: Profile,
    overrides: ModelOverrides | None,
    detect: Detect | None,
) -> bool:
    """Ask, on a first start only; True when the user chose to go to Settings instead
    (opened once the profile is, so Save can reconnect it).

    ``detect``: how to look for models (None: this machine's servers and environment)."""
    # Here, not at the top: the window's modules import no model client (start-up).
    from acai_desktop.core.errors import ModelSettingsError
    from acai_desktop.core.models.detection import detect_providers
    from acai_desktop.core.models.settings import load_model_settings, save_model_settings

    if overrides is not None and overrides.provider:
        return False
    try:
        if load_model_settings(profile.settings_path) is not None:
            return False
    except ModelSettingsError:
        return False  # damaged settings: the banner says so, Settings mends them
    window.show_status(LOOKING_FOR_MODELS)
    report = await (detect or detect_providers)()
    dialog = window.dialogs.first_start(report.options())
    finished = asyncio.Event()
    settings_wanted: list[bool] = []
    dialog.finished.connect(finished.set)
    dialog.settings_requested.connect(lambda: settings_wanted.append(True))
    try:
        await finished.wait()
        option = dialog.chosen()
    finally:
        dialog.deleteLater()
    if option is not None:
        try:
            await asyncio.to_thread(save_model_settings, profile.settings_path, option.settings)
        except OSError as error:
            window.show_status(f"Your choice of model was not saved: {error}", 20_000)
    return bool(settings_wanted)
