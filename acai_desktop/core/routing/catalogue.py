"""The user's models: every chat model the providers they can reach offer, with what is
known of each (issue 42, item 1).

The providers are the one in the settings, the model servers found on this computer
(Ollama, LM Studio, llama.cpp: ``core/models/detection.py``'s probes), OpenAI when a key is
kept for it, and the built-in model when it is installed. Each offers the models its
``/v1/models`` lists; a model's window comes from the known windows' table
(``context_window``), its capabilities, tier and price from ``known_models`` (nothing to
pay for a model on the user's own hardware, whatever its name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from acai_desktop.core.models.context_window import BUILT_IN_SERVER, window_from_table
from acai_desktop.core.models.presets import (
    BUNDLED_LOCAL_MODEL,
    OPENAI_BASE_URL,
    ProviderName,
    preset,
)
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.routing.known_models import Capabilities, capabilities_of
from acai_desktop.core.routing.model_speed import speed_key
from acai_desktop.core.routing.selection import Candidate, Speed, Where, where_it_runs

if TYPE_CHECKING:  # detection needs the model client (openai); the window's dialogs
    # read the known figures here before any model is asked
    from acai_desktop.core.models.detection import DetectionReport

#: A window assumed for a model no table knows: the smallest common one.
ASSUMED_WINDOW = 8_192
# Models a server lists that do not chat: embedders, speech, images, moderation.
_NOT_FOR_CHAT = re.compile(r"embed|whisper|tts|dall-e|moderation|rerank|transcribe", re.I)


@dataclass(frozen=True)
class Offer:
    """What one provider offers: who it is, where it listens, the models it lists."""

    provider: str
    base_url: str | None
    models: tuple[str, ...]


def candidates_from(
    offers: Iterable[Offer],
    measured: Callable[[str], Speed | None] = lambda key: None,
    where_of: Callable[[str | None], Where] = where_it_runs,
) -> list[Candidate]:
    """Each chat model of ``offers`` once (the first provider offering it at an address
    keeps it), with what is known of it, its speed as ``measured`` here (by its
    ``model_speed.speed_key``) and where its server runs (``where_of``: the user's word
    in ``model_table``, else the address)."""
    seen: set[tuple[str | None, str]] = set()
    candidates = []
    for offer in offers:
        where = where_of(offer.base_url)
        for model in offer.models:
            if (offer.base_url, model) in seen or _NOT_FOR_CHAT.search(model):
                continue
            seen.add((offer.base_url, model))
            capabilities, window = known_figures(model, where)
            speed = measured(speed_key(offer.base_url, model))
            candidates.append(
                Candidate(model, offer.provider, where, window, capabilities, speed, offer.base_url)
            )
    return candidates


def known_figures(model: str, where: Where) -> tuple[Capabilities, int]:
    """What is known of ``model`` served from ``where``, before the user's own figures
    (``model_table``): its capabilities (nothing to pay off the cloud) and its window."""
    capabilities = capabilities_of(model)
    if where is not Where.CLOUD:
        capabilities = replace(capabilities, price_in=0.0, price_out=0.0)
    window = window_from_table(model)
    return capabilities, window.tokens if window else ASSUMED_WINDOW


def offers_found(
    settings: ModelSettings,
    configured_models: list[str],
    found: DetectionReport,
    openai_models: list[str] | None = None,
) -> list[Offer]:
    """The offers of the configured provider (``configured_models``: what it lists), the
    servers ``found`` on this computer, OpenAI (``openai_models``, when a key is kept
    and it is not the configured provider) and the built-in model when installed."""
    built_in_configured = settings.provider == ProviderName.LOCAL
    label = BUILT_IN_SERVER if built_in_configured else preset(settings.provider).label
    offers = [Offer(label, settings.resolved_base_url(), tuple(configured_models))]
    for probe in found.reachable:
        if probe.base_url != offers[0].base_url:
            offers.append(Offer(preset(probe.provider).label, probe.base_url, tuple(probe.models)))
    if openai_models and offers[0].base_url != OPENAI_BASE_URL:
        offers.append(
            Offer(preset(ProviderName.OPENAI).label, OPENAI_BASE_URL, tuple(openai_models))
        )
    if found.bundled_model is not None and found.local_extra_installed and not built_in_configured:
        offers.append(Offer(BUILT_IN_SERVER, None, (BUNDLED_LOCAL_MODEL,)))
    return offers
