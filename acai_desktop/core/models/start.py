"""Starting a profile's model: its settings, the client (and the built-in model's servers,
one for the chat and one for learning), the embedder; or, when it can't be had, the
stand-in whose every call says why."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from acai_desktop.core.errors import (
    LocalModelUnavailableError,
    MissingApiKeyError,
    ModelError,
    ModelSettingsError,
)
from acai_desktop.core.models.api_keys import SecretStore, key_variable
from acai_desktop.core.models.chat_model import NoModelClient, NoModelError
from acai_desktop.core.models.choice import ModelOverrides, resolve_settings
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.models.learning_server import learning_client, learning_server_like
from acai_desktop.core.models.local_server import LocalModelServer
from acai_desktop.core.models.presets import ModelRole, ProviderName, preset
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.profile.paths import Profile

log = logging.getLogger(__name__)


#: The runner's check that the model is back: the cheapest real completion.
CHECK_PROMPT = [{"role": "user", "content": "Reply with OK."}]


async def model_answers(client: ModelClient) -> bool:
    """Whether the model answers a real completion (failed jobs wait for that). Not
    ``/v1/models``: a server may list its models while every completion fails."""
    try:
        await client.complete(CHECK_PROMPT, role=ModelRole.TRIAGE, max_tokens=1)
    except ModelError:
        return False
    return True


def make_embedder(
    settings: ModelSettings, client: ModelClient, offline_embedder: Embedder | None = None
) -> Embedder:
    if settings.embedding_source == "provider" and settings.provider != ProviderName.LOCAL:
        from acai_desktop.core.models.embeddings.provider_embedder import ProviderEmbedder

        return ProviderEmbedder(client)
    return offline_embedder or new_offline_embedder()


def new_offline_embedder() -> Embedder:
    """WordLlama, whose weights load on first use (a third of a second): pass one to
    :func:`open_assistant` again to keep them loaded across reconnects."""
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

    return WordLlamaEmbedder()


def _read_secrets(profile: Profile, provider: str) -> tuple[str | None, str | None]:
    """(warning about where keys are kept, the provider's key); Local needs neither."""
    if provider == ProviderName.LOCAL:
        return None, None
    secrets = SecretStore(profile.data_dir)
    return secrets.warning, secrets.get_api_key(provider)


@dataclass
class StartedModel:
    """The model half of an assistant: its settings, client, embedder and server."""

    settings: ModelSettings
    client: ModelClient | NoModelClient
    embedder: Embedder
    local_server: LocalModelServer | None = None
    warnings: list[str] = field(default_factory=list)
    problem: NoModelError | None = None
    #: The built-in model's server for background learning, and its client.
    learning_server: LocalModelServer | None = None
    learning_client: ModelClient | None = None

    async def stop(self) -> None:
        """Undo a start that failed part-way (the servers stop even if we are cancelled)."""
        await stop_model(
            [self.learning_client, self.client], [self.learning_server, self.local_server]
        )


async def start_model(
    profile: Profile,
    overrides: ModelOverrides,
    offline_embedder: Embedder | None,
    *,
    choose_first: bool = True,
    learning_beside_turns: bool = True,
) -> StartedModel:
    """Settings, the client (and the Local server), the embedder; a ``ModelError`` if
    any of them can't be had, with whatever was started already stopped."""
    notes: list[str] = []
    settings = await resolve_settings(profile, overrides, choose_first=choose_first, notes=notes)
    # The keyring may sit behind D-Bus or a locked wallet: never ask it on the loop.
    secret_warning, api_key = await asyncio.to_thread(
        _read_secrets, profile, str(settings.provider)
    )
    warnings = notes + ([secret_warning] if secret_warning else [])
    chosen = preset(settings.provider)
    if chosen.needs_api_key and not api_key:
        # Said now, in the window's banner, not as "could not reach" after a send.
        raise MissingApiKeyError(
            f"No API key is set for {chosen.label}: none is stored in Settings"
            + (f" and {variable} is not set." if (variable := key_variable(chosen.name)) else ".")
        )
    local_server = learning_server = None
    client = learner = None
    try:
        if settings.provider == ProviderName.LOCAL:
            path = settings.local_model_path
            local_server = LocalModelServer(
                path, log_path=profile.logs_dir / "local-model.log", models_dir=profile.models_dir
            )
            if learning_beside_turns:
                learning_server = learning_server_like(
                    local_server, log_path=profile.logs_dir / "learning-model.log"
                )
            # Both at once: each loads the same mmapped file.
            learning_started = asyncio.create_task(_learning_server_started(learning_server))
            try:
                await local_server.start()
            except BaseException:
                learning_started.cancel()
                await asyncio.wait([learning_started])
                raise
            client = ModelClient(
                settings,
                base_url=local_server.base_url,
                api_key=local_server.api_key,
                unreachable_reason=local_server.unavailable_reason,
            )
            if await learning_started:
                learner = learning_client(settings, learning_server)
            else:
                learning_server = None
        else:
            # Building the HTTP client loads the system's certificates (about 0.1 s):
            # on a worker thread, so the window's loop doesn't wait for it.
            client = await asyncio.to_thread(ModelClient, settings, api_key=api_key)
        embedder = make_embedder(settings, client, offline_embedder)
        if not embedder.dimensions:
            await embedder.embed(["probe"])  # a provider's embedder learns its size here
    except BaseException:
        await stop_model([learner, client], [learning_server, local_server])
        raise
    return StartedModel(
        settings,
        client,
        embedder,
        local_server,
        warnings,
        learning_server=learning_server,
        learning_client=learner,
    )


async def _learning_server_started(server: LocalModelServer | None) -> bool:
    """Start the learning server; if it can't run (too little memory, say), learning
    shares the chat's server as before, giving way to the user's turns there."""
    if server is None:
        return False
    try:
        await server.start()
    except LocalModelUnavailableError as error:
        log.warning("learning shares the chat's model server: %s", error)
        return False
    return True


async def stop_model(
    clients: list[ModelClient | NoModelClient | None],
    servers: list[LocalModelServer | None],
) -> None:
    """Undo a start that failed part-way (the servers stop even if we are cancelled)."""
    for client in clients:
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()
    for server in servers:
        if server is not None:
            await asyncio.shield(server.stop())


async def no_model(
    profile: Profile,
    overrides: ModelOverrides,
    error: ModelError,
    offline_embedder: Embedder | None,
) -> StartedModel:
    """The stand-in when the model can't be started: every call says why."""
    log.warning("model unavailable at start-up: %s", error)
    try:
        settings = await resolve_settings(profile, overrides, choose_first=False)
    except ModelSettingsError:
        settings = ModelSettings()  # only its context budget is used; the banner says why
    client = NoModelClient(error)
    embedder = offline_embedder or new_offline_embedder()
    return StartedModel(settings, client, embedder, problem=client.error)
