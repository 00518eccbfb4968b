"""A profile's turns sent to the model that fits each (issue 42), when the user chose a
routing policy (Settings' ``ModelSettings.routing``, a project's or a chat's own); without
one, every turn goes to the chat's model as before.

The router knows the models the user can reach (``reachable.py``, asked again every few
minutes, after a failure and when the user's figures in ``model-table.json`` changed:
saved from Settings → Your models or by hand), chooses for each turn (``selection.py``),
hands out a client for the chosen model's server (the profile's own client for its own
server, one more per other server, kept until the assistant closes) and records what
each call measured (``model_speed.py``), so the next choice knows how fast and how
reliable each model was here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from acai_desktop.core.errors import AcaiError, ModelError
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.models.chat_model import ChatModel
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.context_window import BUILT_IN_SERVER
from acai_desktop.core.models.detection import Detect
from acai_desktop.core.models.presets import OPENAI_BASE_URL, ProviderName, preset
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_desktop.core.routing.model_table import FILE_NAME, load_model_table
from acai_desktop.core.routing.reachable import reachable_candidates
from acai_desktop.core.routing.selection import (
    Candidate,
    Policy,
    Route,
    Where,
    choose_model,
    where_it_runs,
)
from acai_desktop.core.routing.turn_needs import TurnNeeds

log = logging.getLogger(__name__)

#: How long the list of reachable models is trusted before the servers are asked again.
REFRESH_SECONDS = 300.0

FindModels = Callable[[], Awaitable[tuple[list[Candidate], list[str]]]]


class TurnRouter:
    def __init__(
        self,
        settings: ModelSettings,
        client: ChatModel,
        find: FindModels,
        speeds: SpeedLog,
        *,
        secrets: SecretStore | None = None,
        data_dir: Path | None = None,
        own_provider: str = "the chat's server",
    ) -> None:
        self.client = client
        self._find = find
        self.speeds = speeds
        #: Where OpenAI's key is read, when a turn first routes (never at start: the
        #: keyring may answer slowly).
        self._secrets = secrets
        self._openai_key: str | None = None
        self._own_url = settings.resolved_base_url()
        #: The most a routed answer may cost (dollars; None: no ceiling).
        self.cost_ceiling = settings.max_answer_cost
        #: Who serves the profile's own model, as the user knows it ("OpenAI", "Ollama").
        self.own_provider = own_provider
        #: Where model-table.json is read (None: the addresses alone say where servers run).
        self._data_dir = data_dir
        self._candidates: list[Candidate] = []
        self._found_at: float | None = None
        #: model-table.json as it stood when the candidates were listed (``_table_stamp``).
        self._listed_with: tuple[int, int, int] | None = None
        #: Where the own server runs, with the file's stamp it was read at.
        self._own_where: tuple[tuple[int, int, int] | None, Where] | None = None
        self._clients: dict[str, ModelClient] = {}
        #: The speeds' file is written off the loop, one write at a time (the last
        #: figures win).
        self._saving: asyncio.Task | None = None
        self._save_again = False

    async def route(self, needs: TurnNeeds, policy: Policy, *, private: bool = False) -> Route:
        """The models that can do a turn with ``needs``, best first by ``policy``;
        ``private``: the turn holds something local only (only this computer's models)."""
        candidates = await self._reachable()
        for_turn = [replace(c, measured=self._speed(c)) for c in candidates]
        return choose_model(
            needs, for_turn, policy, private=private, cost_ceiling=self.cost_ceiling
        )

    async def own_where(self) -> Where:
        """Where the profile's own model runs: the user's word in model-table.json, else
        its address (the file read again when it changed: the user may have just said
        so in Settings)."""
        if self._data_dir is None:
            return where_it_runs(self._own_url)
        stamp = await asyncio.to_thread(self._table_stamp)
        if self._own_where is None or stamp != self._own_where[0]:
            table, _ = await asyncio.to_thread(load_model_table, self._data_dir)
            self._own_where = (stamp, table.where(self._own_url))
        return self._own_where[1]

    async def _reachable(self) -> list[Candidate]:
        # Before the listing: a change while it runs is read at the next turn.
        table = await asyncio.to_thread(self._table_stamp) if self._data_dir else None
        stale = self._found_at is None or time.monotonic() - self._found_at > REFRESH_SECONDS
        if stale or table != self._listed_with:
            self._listed_with = table
            if self._secrets is not None:
                key = await asyncio.to_thread(self._secrets.get_api_key, str(ProviderName.OPENAI))
                self._openai_key = key
            try:
                found, problems = await self._find()
            except AcaiError as error:  # the turn still has the chat's model
                log.warning("models could not be listed for routing: %s", error)
                found, problems = [], []
            for problem in problems:
                log.info("routing: %s", problem)
            # The built-in server runs only when it is the profile's own model.
            self._candidates = [c for c in found if c.base_url is not None or self._own_url is None]
            self._found_at = time.monotonic()
        return self._candidates

    def _table_stamp(self) -> tuple[int, int, int] | None:
        """model-table.json as it stands (None: there is none). A save from the window
        replaces the file (a new inode), an edit by hand changes its time or size."""
        assert self._data_dir is not None
        try:
            found = (self._data_dir / FILE_NAME).stat()
        except OSError:
            return None
        return found.st_ino, found.st_mtime_ns, found.st_size

    def _speed(self, candidate: Candidate):
        return self.speeds.speed(speed_key(candidate.base_url, candidate.model))

    def client_for(self, candidate: Candidate) -> ChatModel:
        """The client that reaches ``candidate``'s server."""
        url = candidate.base_url
        if url == self._own_url or url is None:
            return self.client
        if url not in self._clients:
            key = self._openai_key if url == OPENAI_BASE_URL else None
            provider = ProviderName.OPENAI if url == OPENAI_BASE_URL else ProviderName.CUSTOM
            settings = ModelSettings.for_preset(provider, base_url=url)
            self._clients[url] = ModelClient(settings, base_url=url, api_key=key)
        return self._clients[url]

    def answered(self, candidate: Candidate, stats: StreamStats, text: str, seconds: float):
        """A call that answered: its speed counts in the model's figures."""
        tokens = stats.completion_tokens or estimate_tokens(text)
        writing = max(seconds - (stats.first_token_seconds or 0.0), 1e-3)
        self.speeds.record(
            speed_key(candidate.base_url, candidate.model),
            ok=True,
            first_token_seconds=stats.first_token_seconds,
            tokens_per_second=tokens / writing,
        )
        self._save_soon()

    def failed(self, candidate: Candidate, error: ModelError) -> None:
        """A call that failed: it counts in the model's error rate, and the servers are
        asked again before the next turn (one may have gone)."""
        self.speeds.record(speed_key(candidate.base_url, candidate.model), ok=False)
        self._found_at = None
        self._save_soon()

    def _save_soon(self) -> None:
        if self._saving is not None and not self._saving.done():
            self._save_again = True
            return
        self._saving = asyncio.get_running_loop().create_task(self._save(), name="model speeds")

    async def _save(self) -> None:
        while True:
            self._save_again = False
            await asyncio.to_thread(self.speeds.save, self.speeds.snapshot())
            if not self._save_again:
                return

    async def close(self) -> None:
        if self._saving is not None:
            await self._saving
        for client in self._clients.values():
            await client.close()
        self._clients.clear()


async def profile_router(
    profile: Profile,
    settings: ModelSettings,
    client: ChatModel,
    overrides: ModelOverrides,
    detect: Detect | None,
) -> TurnRouter:
    """The router of a profile whose model runs with ``settings``: it asks nothing of
    any server until a turn is routed (Settings', a project's or a chat's policy)."""

    async def find() -> tuple[list[Candidate], list[str]]:
        return await reachable_candidates(profile, overrides, detect=detect, choose_first=False)

    speeds = await asyncio.to_thread(SpeedLog, profile.data_dir)
    built_in = settings.provider == ProviderName.LOCAL
    return TurnRouter(
        settings,
        client,
        find,
        speeds,
        secrets=SecretStore(profile.data_dir),
        data_dir=profile.data_dir,
        own_provider=BUILT_IN_SERVER if built_in else _provider_name(settings),
    )


def _provider_name(settings: ModelSettings) -> str:
    """Who serves the profile's model, as the user knows it: a preset's name, or the
    address of a server the user typed in."""
    if settings.provider == ProviderName.CUSTOM:
        return urlsplit(settings.resolved_base_url() or "").netloc or "a custom server"
    return preset(settings.provider).label
