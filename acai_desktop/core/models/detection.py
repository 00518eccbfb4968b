"""First-start detection: what model providers this machine has, and which to propose.

Probes each local preset's ``/v1/models`` with a short timeout (all at once), looks for
OPENAI_API_KEY, and checks whether the local extra and the bundled model are installed.
The proposal prefers a model server the user already runs, then OpenAI if a key is set,
then the built-in Local server.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import openai

from acai_desktop.core.models.local_model_files import bundled_model_path, local_extra_installed
from acai_desktop.core.models.presets import PRESETS, ProviderName, RoleModels, preset
from acai_desktop.core.models.settings import ModelSettings

#: Probed in this order, which is also the order of preference among running servers.
PROBED_PROVIDERS = tuple(name for name, p in PRESETS.items() if p.probe_on_first_start)


@dataclass(frozen=True)
class ProviderProbe:
    provider: ProviderName
    base_url: str
    reachable: bool
    models: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class DetectionReport:
    probes: list[ProviderProbe]
    openai_key_set: bool
    local_extra_installed: bool
    bundled_model: Path | None
    #: The provider to propose, or None if nothing usable was found.
    proposal: ProviderName | None

    @property
    def reachable(self) -> list[ProviderProbe]:
        return [probe for probe in self.probes if probe.reachable]

    def proposed_settings(self) -> ModelSettings | None:
        """Settings for the proposal; for a running server, models it actually lists."""
        if self.proposal is None:
            return None
        probe = next((p for p in self.probes if p.provider == self.proposal), None)
        if probe is None:
            return ModelSettings.for_preset(self.proposal)
        return ModelSettings.for_preset(
            self.proposal, base_url=probe.base_url, models=_models_from(probe)
        )

    def options(self) -> list[ModelOption]:
        """What the first start offers, best first: each running server, OpenAI with the
        environment's key, and the built-in model for what it is (a small, slow demo)."""
        options = [_server_option(probe) for probe in self.reachable]
        if self.openai_key_set:
            openai_settings = ModelSettings.for_preset(ProviderName.OPENAI)
            options.append(
                ModelOption(
                    ProviderName.OPENAI,
                    f"OpenAI ({openai_settings.model_for('chat')})",
                    "Uses the OPENAI_API_KEY set in your environment. Fast and capable; "
                    "your messages and memories are sent to OpenAI to be answered.",
                    openai_settings,
                )
            )
        if self.local_extra_installed and self.bundled_model is not None:
            options.append(
                ModelOption(
                    ProviderName.LOCAL,
                    BUILT_IN_TITLE,
                    BUILT_IN_DESCRIPTION,
                    ModelSettings.for_preset(ProviderName.LOCAL),
                    demo=True,
                )
            )
        return options


#: How the built-in model is offered: for what it is.
BUILT_IN_TITLE = "Built-in demo model (SmolLM2, 135M parameters)"
BUILT_IN_DESCRIPTION = (
    "A small offline demo that runs on this computer with nothing to set up. Its answers "
    "are simple, and it remembers only what you say plainly about yourself (\"I'm "
    'vegetarian"), after asking you: good for trying ACAI, not for real use. Nothing '
    "leaves this computer."
)


@dataclass(frozen=True)
class ModelOption:
    """One choice of the first start: what it is, in words, and the settings it saves."""

    provider: ProviderName
    title: str
    description: str
    settings: ModelSettings
    #: The built-in demo model (never chosen without the user's yes).
    demo: bool = False


def _server_option(probe: ProviderProbe) -> ModelOption:
    settings = ModelSettings.for_preset(
        probe.provider, base_url=probe.base_url, models=_models_from(probe)
    )
    label = preset(probe.provider).label
    listed = f"{len(probe.models)} model(s) listed" if probe.models else "no model listed"
    return ModelOption(
        probe.provider,
        f"{label} at {probe.base_url}",
        f"A model server already running on this computer ({listed}); ACAI would answer "
        f"with {settings.model_for('chat')}. Your conversations stay on this computer.",
        settings,
    )


def _models_from(probe: ProviderProbe) -> RoleModels:
    defaults = preset(probe.provider).models
    if not probe.models:
        return defaults
    listed = set(probe.models)

    def pick(wanted: str, fallback: str) -> str:
        return wanted if wanted in listed else fallback

    chat_models = [m for m in probe.models if "embed" not in m.lower()] or probe.models
    embedding_models = [m for m in probe.models if "embed" in m.lower()]
    chat = pick(defaults.chat, chat_models[0])
    embedding = pick(defaults.embedding, embedding_models[0] if embedding_models else chat)
    return RoleModels(chat=chat, triage=chat, extraction=chat, summary=chat, embedding=embedding)


async def probe_provider(name: ProviderName, base_url: str, timeout: float) -> ProviderProbe:
    try:
        async with openai.AsyncOpenAI(
            base_url=base_url, api_key="not-needed", timeout=timeout, max_retries=0
        ) as client:
            page = await client.models.list()
            models = [model.id for model in page.data]
    except (openai.OpenAIError, ValueError, TypeError) as error:
        return ProviderProbe(name, base_url, reachable=False, error=type(error).__name__)
    return ProviderProbe(name, base_url, reachable=True, models=models)


async def detect_providers(
    timeout: float = 0.5,
    *,
    urls: Mapping[ProviderName | str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> DetectionReport:
    """What this machine offers. The defaults are the real ones: each probed preset at its
    preset address, and the process environment. ``urls`` overrides where a preset is
    looked for (the settings dialog probes the address typed in it; tests point every
    preset at a scripted server or a closed port), ``environ`` replaces the environment
    (tests pass their own, so a key on the developer's machine doesn't leak in)."""
    environ = os.environ if environ is None else environ
    addresses = {name: preset(name).base_url for name in PROBED_PROVIDERS}
    for name, url in (urls or {}).items():
        addresses[ProviderName(name)] = url
    probes = list(
        await asyncio.gather(
            *(probe_provider(name, url, timeout) for name, url in addresses.items() if url)
        )
    )
    key_set = bool(environ.get("OPENAI_API_KEY", "").strip())
    extra = local_extra_installed()
    bundled = bundled_model_path()
    return DetectionReport(
        probes=probes,
        openai_key_set=key_set,
        local_extra_installed=extra,
        bundled_model=bundled,
        proposal=_propose(probes, key_set, extra and bundled is not None),
    )


#: How the first start asks "what is there?": :func:`detect_providers` with its defaults in
#: the program, a ``functools.partial`` with explicit addresses and environment in tests.
Detect = Callable[[], Awaitable[DetectionReport]]


def _propose(
    probes: list[ProviderProbe], openai_key_set: bool, local_ready: bool
) -> ProviderName | None:
    for probe in probes:
        if probe.reachable:
            return probe.provider
    if openai_key_set:
        return ProviderName.OPENAI
    if local_ready:
        return ProviderName.LOCAL
    return None
