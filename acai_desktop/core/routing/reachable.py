"""The models the user can reach now: each provider asked what it lists (no model is
called), turned into the router's candidates (``catalogue.py``) with the user's own
figures laid over the known ones (``model_table.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import openai

from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.models.choice import ModelOverrides, resolve_settings
from acai_desktop.core.models.detection import Detect, detect_providers
from acai_desktop.core.models.presets import OPENAI_BASE_URL, ProviderName, preset
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.redaction import redact
from acai_desktop.core.routing.catalogue import Offer, candidates_from, offers_found
from acai_desktop.core.routing.model_speed import SpeedLog
from acai_desktop.core.routing.model_table import ModelTable, load_model_table, with_model_table
from acai_desktop.core.routing.selection import Candidate

#: How long a provider may take to list its models before it counts as unreachable.
LISTING_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class ModelListing:
    """What a listing found: the providers' offers (kept, so the user's figures can be
    laid over them again without asking the servers), the chat models with what is
    known and measured of each, the user's table and what went wrong (sentences)."""

    offers: tuple[Offer, ...]
    candidates: tuple[Candidate, ...]
    table: ModelTable
    #: Providers that could not be asked (keys redacted).
    server_problems: tuple[str, ...] = ()
    #: What is wrong with ``model-table.json``.
    table_problems: tuple[str, ...] = ()

    @property
    def problems(self) -> list[str]:
        return [*self.server_problems, *self.table_problems]

    def refigured(self, data_dir: Path) -> ModelListing:
        """The same offers with the figures as the files now say (blocking: reads them)."""
        return listing_of(self.offers, self.server_problems, data_dir)


async def reachable_candidates(
    profile: Profile,
    overrides: ModelOverrides,
    *,
    detect: Detect | None = None,
    choose_first: bool = True,
) -> tuple[list[Candidate], list[str]]:
    """The chat models the user can reach, and what could not be asked or read (plain
    sentences, keys redacted); as :func:`reachable_listing`."""
    listing = await reachable_listing(profile, overrides, detect=detect, choose_first=choose_first)
    return list(listing.candidates), listing.problems


async def reachable_listing(
    profile: Profile,
    overrides: ModelOverrides,
    *,
    detect: Detect | None = None,
    choose_first: bool = True,
) -> ModelListing:
    """The chat models the user can reach. ``detect``: how servers on this computer are
    looked for (None: the real probes); ``choose_first``: as
    ``model_choice.resolve_settings``'s."""
    detect = detect or detect_providers
    settings = await resolve_settings(profile, overrides, detect=detect, choose_first=choose_first)
    secrets = SecretStore(profile.data_dir)
    keys = await asyncio.to_thread(
        lambda: {name: secrets.get_api_key(name) for name in (settings.provider, "openai")}
    )
    found = await detect()
    problems: list[str] = []
    configured = [settings.models.chat]
    if settings.provider != ProviderName.LOCAL:
        url = settings.resolved_base_url()
        listed = await _listed(url, keys[settings.provider], preset(settings.provider).label)
        if isinstance(listed, str):
            problems.append(listed)
        else:
            configured = listed
    openai_models = None
    if settings.provider != ProviderName.OPENAI and keys["openai"]:
        listed = await _listed(OPENAI_BASE_URL, keys["openai"], "OpenAI")
        if isinstance(listed, str):
            problems.append(listed)
        else:
            openai_models = listed
    offers = offers_found(settings, configured, found, openai_models)
    return await asyncio.to_thread(listing_of, offers, problems, profile.data_dir)


def listing_of(
    offers: Iterable[Offer], server_problems: Iterable[str], data_dir: Path
) -> ModelListing:
    """``offers`` as candidates, with their speeds measured here and the user's figures
    (``model-table.json``) laid over the known ones (blocking: reads both files)."""
    speeds = SpeedLog(data_dir)
    table, table_problems = load_model_table(data_dir)
    offers = tuple(offers)
    found = candidates_from(offers, speeds.speed, table.where)
    candidates = tuple(with_model_table(c, table) for c in found)
    return ModelListing(offers, candidates, table, tuple(server_problems), tuple(table_problems))


async def _listed(base_url: str | None, api_key: str | None, label: str) -> list[str] | str:
    """The models ``base_url`` lists, or why it could not be asked."""
    try:
        async with openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=LISTING_TIMEOUT_SECONDS,
            max_retries=0,
        ) as client:
            page = await client.models.list()
    except (openai.OpenAIError, ValueError, TypeError) as error:
        detail = redact(str(error), [api_key]) or type(error).__name__
        return f"{label} at {base_url} did not list its models: {detail}"
    return [model.id for model in page.data]
