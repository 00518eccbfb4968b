"""Asking a model's server how large a context window it runs the model with.

Each kind of server says it its own way (beside the OpenAI API, from the server's root):

- llama.cpp's ``llama-server``: ``GET /props`` → ``default_generation_settings.n_ctx``
  (the window of one slot, what a request gets);
- Ollama: ``POST /api/show`` → ``parameters``' ``num_ctx`` when the model's Modelfile
  sets one, and ``model_info``'s ``<arch>.context_length``, the length the model was
  trained for. Without ``num_ctx`` Ollama runs the model with its own default window,
  far smaller than that (4,096 on most desktops; set by ``OLLAMA_CONTEXT_LENGTH``,
  which no endpoint reports) and cuts a longer prompt silently: ``GET /api/ps`` tells
  the window of a model it has loaded, else its default is assumed
  (:data:`OLLAMA_DEFAULT_TOKENS`) and said to be an assumption;
- LM Studio: ``GET /api/v0/models`` → ``loaded_context_length`` of a loaded model,
  ``max_context_length`` (what it was trained for) of any; a model it loads on demand
  gets its default window (:data:`LMSTUDIO_DEFAULT_TOKENS`, assumed);
- others (a custom address): the ``/v1/models`` entry's ``max_model_len`` (vLLM),
  ``context_length`` or ``meta.n_ctx_train`` (llama.cpp), if it has one;
- the app's own server knows its ``n_ctx``; OpenAI says nothing.

A server that doesn't answer within :data:`PROBE_TIMEOUT_SECONDS`, or says nothing
useful, is not an error: the known models' table answers instead
(``core.models.context_window``). Each (address, model) is asked once per connection; a
reconnect (Settings saved) asks again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

import openai

from acai_desktop.core.models.context_window import (
    BUILT_IN_SERVER,
    ContextWindow,
    WindowSource,
    window_from_table,
)
from acai_desktop.core.models.presets import ProviderName, has_model

log = logging.getLogger(__name__)

#: The longest wait for one answer of a server about a window.
PROBE_TIMEOUT_SECONDS = 2.0
#: The window Ollama runs a model with when nothing sets ``num_ctx``: 4,096 since 0.6
#: (2,048 before; the newest pick 4k, 32k or 256k by the GPU's memory). The smallest
#: current one is assumed: a budget too small costs recall, one too large is cut by
#: the server without a word.
OLLAMA_DEFAULT_TOKENS = 4096
#: The window LM Studio loads a model with on demand, unless the user set another.
LMSTUDIO_DEFAULT_TOKENS = 4096
#: Servers that run a model smaller than it was trained for unless told otherwise:
#: what the table says is capped at their default when they can't be asked.
SERVER_DEFAULTS = {
    ProviderName.OLLAMA: ("Ollama", OLLAMA_DEFAULT_TOKENS),
    ProviderName.LMSTUDIO: ("LM Studio", LMSTUDIO_DEFAULT_TOKENS),
}


class ServerJson(Protocol):
    """What the probe needs of the model client (core.models.client.ModelClient)."""

    base_url: str

    async def server_json(
        self, path: str, *, body: dict | None = None, timeout: float
    ) -> object: ...


class ContextWindows:
    """The context window of each model a profile's chats use, asked of its server once
    and kept for the connection's life (a model the server can't tell about is looked
    up in the table; that answer is kept too)."""

    def __init__(
        self,
        provider: ProviderName | str,
        client: ServerJson | None = None,
        *,
        built_in_n_ctx: int | None = None,
        timeout: float = PROBE_TIMEOUT_SECONDS,
    ) -> None:
        """``client`` None: no server to ask (no model could be started), the table
        answers. ``built_in_n_ctx``: the window of the app's own server (the Local
        provider), which answers for every name."""
        self.provider = ProviderName(provider)
        self.client = client
        self.built_in_n_ctx = built_in_n_ctx
        self.timeout = timeout
        self._found: dict[tuple[str | None, str], ContextWindow | None] = {}
        self._asking: dict[tuple[str | None, str], asyncio.Task] = {}

    @property
    def base_url(self) -> str | None:
        return self.client.base_url if self.client is not None else None

    async def window_for(self, model: str | None) -> ContextWindow | None:
        """``model``'s window (None: nobody knows it). Several callers asking at once
        share one probe; a caller cancelled while it waits leaves it running."""
        if not model:
            return None
        key = (self.base_url, model)
        if key in self._found:
            return self._found[key]
        return await asyncio.shield(self._probe(key))

    def start(self, model: str | None) -> None:
        """Ask for ``model``'s window now, without waiting (:meth:`window_for` joins)."""
        if model and (self.base_url, model) not in self._found:
            self._probe((self.base_url, model))

    def _probe(self, key: tuple[str | None, str]) -> asyncio.Task:
        task = self._asking.get(key)
        if task is None:
            task = asyncio.create_task(self._find(key[1]), name=f"context window of {key[1]}")
            self._asking[key] = task
            task.add_done_callback(lambda done: self._settle(key, done))
        return task

    def _settle(self, key: tuple[str | None, str], task: asyncio.Task) -> None:
        self._asking.pop(key, None)
        if not task.cancelled() and task.exception() is None:
            self._found[key] = task.result()

    async def aclose(self) -> None:
        """Stop the probes still under way (quitting)."""
        tasks = list(self._asking.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _find(self, model: str) -> ContextWindow | None:
        if self.built_in_n_ctx is not None:
            return ContextWindow(self.built_in_n_ctx, model, WindowSource.SERVER, BUILT_IN_SERVER)
        ask = _ASKS.get(self.provider)
        if self.client is not None and ask is not None:
            try:
                async with asyncio.timeout(self.timeout * 2):
                    told = await ask(self, model)
            except (openai.OpenAIError, TimeoutError) as error:
                log.info("no context window from the server for %s (%s)", model, error)
            else:
                if told is not None:
                    return told
        table = window_from_table(model)
        if table is not None and self.provider in SERVER_DEFAULTS:
            server, default = SERVER_DEFAULTS[self.provider]
            if default < table.tokens:
                return ContextWindow(
                    default, model, WindowSource.SERVER_DEFAULT, server, trained_tokens=table.tokens
                )
        return table

    async def _ask(self, path: str, body: dict | None = None) -> object:
        """The server's JSON at ``path``; None when it has no such route or refuses
        (another kind of server). A server that doesn't answer raises."""
        assert self.client is not None
        try:
            return await self.client.server_json(path, body=body, timeout=self.timeout)
        except openai.APIStatusError as error:
            log.debug("%s: %s", path, error.status_code)
            return None

    # -- each kind of server ---------------------------------------------------------

    async def _llamacpp(self, model: str) -> ContextWindow | None:
        n_ctx = _positive(_at(await self._ask("/props"), "default_generation_settings", "n_ctx"))
        if n_ctx is not None:
            return ContextWindow(n_ctx, model, WindowSource.SERVER, "llama.cpp")
        return await self._listed(model)

    async def _listed(self, model: str) -> ContextWindow | None:
        entry = _entry_of(await self._ask("/v1/models"), model)
        for path in (("max_model_len",), ("context_length",), ("meta", "n_ctx_train")):
            tokens = _positive(_at(entry, *path))
            if tokens is not None:
                return ContextWindow(tokens, model, WindowSource.SERVER)
        return None

    async def _ollama(self, model: str) -> ContextWindow | None:
        show = await self._ask("/api/show", {"model": model, "name": model})
        if not isinstance(show, dict):
            return None
        trained = _trained_length(show.get("model_info"))
        num_ctx = _num_ctx(show.get("parameters"))
        if num_ctx is None:
            running = await self._ask("/api/ps")
            loaded = _at(running, "models")
            for entry in loaded if isinstance(loaded, list) else []:
                name = _at(entry, "name") or _at(entry, "model")
                if isinstance(name, str) and has_model([name], model):
                    num_ctx = _positive(_at(entry, "context_length"))
        if num_ctx is not None:
            return ContextWindow(num_ctx, model, WindowSource.SERVER, "Ollama", trained)
        tokens = OLLAMA_DEFAULT_TOKENS if trained is None else min(trained, OLLAMA_DEFAULT_TOKENS)
        return ContextWindow(tokens, model, WindowSource.SERVER_DEFAULT, "Ollama", trained)

    async def _lmstudio(self, model: str) -> ContextWindow | None:
        entry = _entry_of(await self._ask("/api/v0/models"), model)
        trained = _positive(_at(entry, "max_context_length"))
        loaded = _positive(_at(entry, "loaded_context_length"))
        if loaded is not None:
            return ContextWindow(loaded, model, WindowSource.SERVER, "LM Studio", trained)
        if trained is None:
            return None
        tokens = min(trained, LMSTUDIO_DEFAULT_TOKENS)
        return ContextWindow(tokens, model, WindowSource.SERVER_DEFAULT, "LM Studio", trained)


_ASKS: dict[ProviderName, Callable[[ContextWindows, str], Awaitable[ContextWindow | None]]] = {
    ProviderName.LLAMACPP: ContextWindows._llamacpp,
    ProviderName.CUSTOM: ContextWindows._llamacpp,
    ProviderName.OLLAMA: ContextWindows._ollama,
    ProviderName.LMSTUDIO: ContextWindows._lmstudio,
}


def _at(data: object, *path: str) -> object:
    for name in path:
        if not isinstance(data, dict):
            return None
        data = data.get(name)
    return data


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _entry_of(listing: object, model: str) -> object:
    """The listing's entry for ``model`` (a server with one model: that one)."""
    entries = _at(listing, "data")
    if not isinstance(entries, list):
        return None
    named = [e for e in entries if isinstance(_at(e, "id"), str)]
    for entry in named:
        if has_model([_at(entry, "id")], model):  # type: ignore[list-item]
            return entry
    return named[0] if len(named) == 1 else None


def _trained_length(model_info: object) -> int | None:
    """``<arch>.context_length`` of Ollama's ``model_info``."""
    if not isinstance(model_info, dict):
        return None
    arch = model_info.get("general.architecture")
    if isinstance(arch, str) and (tokens := _positive(model_info.get(f"{arch}.context_length"))):
        return tokens
    for key, value in model_info.items():
        if isinstance(key, str) and key.endswith(".context_length"):
            return _positive(value)
    return None


def _num_ctx(parameters: object) -> int | None:
    """``num_ctx`` among Ollama's ``parameters`` (one ``name value`` a line)."""
    if not isinstance(parameters, str):
        return None
    for line in parameters.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
            return _positive(int(parts[1]))
    return None
