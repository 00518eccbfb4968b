"""Which model a profile runs: the command line's choice, else the saved settings, else
(first start) what detection proposes."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from acai_desktop.core.errors import ModelNotChosenError, StoreError
from acai_desktop.core.models.detection import Detect, detect_providers
from acai_desktop.core.models.presets import ProviderName, RoleModels, preset
from acai_desktop.core.models.settings import (
    ModelSettings,
    load_model_settings,
    save_model_settings,
)
from acai_desktop.core.profile.paths import Profile

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelOverrides:
    """Command-line choices that win over the saved settings for one run."""

    provider: str | None = None
    base_url: str | None = None
    model: str | None = None  # one model name for every chat-like role
    #: The routing policy's name for this run; "off": the chat's model always.
    routing: str | None = None
    #: The most a routed answer may cost in this run, in dollars.
    max_answer_cost: float | None = None


async def first_start_settings(
    profile: Profile, *, detect: Detect = detect_providers, notes: list[str] | None = None
) -> ModelSettings:
    """No settings saved yet: propose what is there (a running Ollama / LM Studio /
    llama.cpp server, then OPENAI_API_KEY, then the Local extra) and remember it.
    What was chosen, and what it is, goes to ``notes`` (the command line prints it: the
    window asks instead, see AppController)."""
    report = await detect()
    settings = report.proposed_settings() or ModelSettings.for_preset(ProviderName.LOCAL)
    if notes is not None:
        chosen = next((o for o in report.options() if o.provider == settings.provider), None)
        what = f"{chosen.title}: {chosen.description}" if chosen else str(settings.provider)
        notes.append(
            f"First start: using {what} Choose another with --provider, or in the window's "
            "Settings."
        )
    try:
        save_model_settings(profile.settings_path, settings)
    except OSError as error:
        raise StoreError(
            f"ACAI Desktop cannot write its settings in {profile.data_dir} "
            f"({error.strerror or error}): the folder is read-only or not yours. Check its "
            "permissions, or choose another data directory (--data-dir)."
        ) from None
    log.info("first start: using %s (%s)", settings.provider, report.proposal)
    return settings


NOT_CHOSEN_TEXT = "No model is chosen yet."


async def resolve_settings(
    profile: Profile,
    overrides: ModelOverrides,
    *,
    detect: Detect = detect_providers,
    choose_first: bool = True,
    notes: list[str] | None = None,
) -> ModelSettings:
    """The settings to run with: the command line's, else the saved ones, else (first
    start, ``choose_first``) what detection proposes. Without ``choose_first`` the
    window has asked the user, who put it off: :class:`ModelNotChosenError`."""
    saved = load_model_settings(profile.settings_path)
    if overrides.provider and (saved is None or saved.provider != overrides.provider):
        settings = ModelSettings.for_preset(overrides.provider)
    elif saved is not None:
        settings = saved
    elif choose_first:
        settings = await first_start_settings(profile, detect=detect, notes=notes)
    else:
        raise ModelNotChosenError(NOT_CHOSEN_TEXT)
    changes: dict = {}
    if overrides.base_url:
        changes["base_url"] = overrides.base_url
    if overrides.routing:
        changes["routing"] = None if overrides.routing == "off" else overrides.routing
    if overrides.max_answer_cost is not None:
        changes["max_answer_cost"] = overrides.max_answer_cost
    if overrides.model:
        embedding = settings.models.embedding or preset(settings.provider).models.embedding
        changes["models"] = RoleModels.same(overrides.model, embedding=embedding)
    return settings.model_copy(update=changes) if changes else settings
