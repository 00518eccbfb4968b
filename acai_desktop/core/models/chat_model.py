"""What the orchestrator needs of a model, and the stand-in used when there is none.

:class:`ChatModel` types the orchestrator's ``client``: the real :class:`ModelClient`
is one, and so is :class:`NoModelClient`, which :func:`open_assistant` puts in its place
when the model can't be started (damaged settings, the local extra missing, a refused
key): the profile's conversations and memories stay usable, and every model call fails
with a :class:`NoModelError` that says why and what to do next.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from acai_desktop.core.errors import (
    LocalModelFileMissingError,
    LocalModelUnavailableError,
    MissingApiKeyError,
    ModelError,
    ModelNotChosenError,
    ModelSettingsError,
    ModelUnauthorizedError,
)
from acai_desktop.core.models.presets import ModelRole
from acai_desktop.core.models.replies import Completion, Messages, StreamStats


class ChatModel(Protocol):
    """A model that streams a chat answer (what one turn of the orchestrator calls)."""

    def stream_chat(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ...,
        max_tokens: int | None = ...,
        temperature: float | None = ...,
        stats: StreamStats | None = ...,
        model: str | None = ...,
    ) -> AsyncIterator[str]:
        """Yield the answer's text deltas as they arrive (an async generator); the
        server's finish reason and token usage land in ``stats``."""
        ...

    def model_for(self, role: ModelRole | str) -> str | None:
        """The model name for ``role`` (None: there is no model)."""
        ...


def next_step(error: ModelError) -> str:
    """What the user can do about ``error`` (shown under the reason)."""
    if isinstance(error, ModelNotChosenError):
        return "Press Settings to choose a model: a server you run, OpenAI, or the built-in demo."
    if isinstance(error, ModelSettingsError):
        return "Open Settings to choose the provider again, then save."
    if isinstance(error, LocalModelFileMissingError):
        return (
            "Choose an existing GGUF file in Settings (or the built-in model), then press "
            "Try again."
        )
    if isinstance(error, MissingApiKeyError):
        return "Enter the API key in Settings (or set it in the environment), then save."
    if isinstance(error, LocalModelUnavailableError):
        return (
            "Install the local extra (pip install 'acai-desktop[local]') or choose another "
            "provider in Settings, then press Try again."
        )
    if isinstance(error, ModelUnauthorizedError):
        return "Enter a valid API key for the provider in Settings, then press Try again."
    return "Start the model server or check its address in Settings, then press Try again."


class NoModelError(ModelError):
    """A model call while no model could be started; the text is the start-up reason."""

    def __init__(self, cause: ModelError) -> None:
        super().__init__(str(cause))
        #: Why the model could not be started (e.g. a ModelSettingsError).
        self.cause = cause
        #: What to do about it ("Open Settings to …").
        self.next_step = next_step(cause)


class NoModelClient:
    """Stands in for the model client when it could not be started: every call raises
    :class:`NoModelError`, so an answer records the reason on its row."""

    def __init__(self, cause: ModelError) -> None:
        self.error = NoModelError(cause)

    async def stream_chat(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ModelRole.CHAT,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stats: StreamStats | None = None,
        model: str | None = None,
    ):
        raise self.error
        yield ""  # pragma: no cover - makes this an async generator

    async def complete(self, messages: Messages, **options: Any) -> str:
        raise self.error

    async def create_completion(self, messages: Messages, **options: Any) -> Completion:
        raise self.error

    async def structured(self, messages: Messages, schema: type, **options: Any):
        raise self.error

    async def embed(self, texts: Sequence[str]):
        raise self.error

    async def list_models(self) -> list[str]:
        raise self.error

    def model_for(self, role: ModelRole | str) -> str | None:
        return None

    async def close(self) -> None:
        """Nothing to close."""
