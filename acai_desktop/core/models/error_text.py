"""The SDK's failures as ours: a typed ``ModelError`` whose text says what happened and
what to do, for the server and model at hand (split from client.py: the client calls,
this module explains)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import openai

from acai_desktop.core.errors import (
    ContextTooLongError,
    LocalModelUnavailableError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitedError,
    ModelReplyError,
    ModelServerError,
    ModelTimeoutError,
    ModelUnauthorizedError,
    ModelUnreachableError,
)
from acai_desktop.core.models.api_keys import ENVIRONMENT_KEYS
from acai_desktop.core.models.presets import ProviderName, preset

_CONTEXT_LENGTH_HINTS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "too many tokens",
    "exceeds the available context",
    "prompt is too long",
    "exceed context",
)


@dataclass(frozen=True)
class ServerInfo:
    """What an error text names about the server being called."""

    base_url: str
    provider: ProviderName
    read_timeout: float
    #: For a server the app manages itself: why it is not answering, if it knows.
    unreachable_reason: Callable[[], str | None] | None = None

    def where(self, model: str | None) -> str:
        return f"the model {model!r} at {self.base_url}" if model else self.base_url

    def subject(self, model: str | None) -> str:
        where = self.where(model)
        return where[0].upper() + where[1:]


def unreadable_reply(error: Exception, subject: str) -> ModelReplyError:
    return ModelReplyError(
        f"{subject} sent a reply that could not be read ({reason_of(error)}). "
        "Retry, or check that the server speaks the OpenAI API."
    )


def translate_error(error: openai.OpenAIError, server: ServerInfo, model: str | None) -> ModelError:
    """The SDK's exception as one of ours (not yet redacted: the client does that)."""
    where = server.where(model)
    subject = server.subject(model)
    if isinstance(error, openai.APITimeoutError):
        return ModelTimeoutError(
            f"{subject} did not answer within {server.read_timeout:g} s. The server may be "
            "overloaded or the model too slow; retry, or raise the timeout in Settings."
        )
    if isinstance(error, openai.APIConnectionError):
        reason = server.unreachable_reason() if server.unreachable_reason else None
        if reason:
            return LocalModelUnavailableError(reason)
        return ModelUnreachableError(
            f"Could not reach the model server at {server.base_url}. Check that it is "
            "running and the address is right, or pick another provider in Settings."
        )
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelUnauthorizedError(
            f"The model server at {server.base_url} refused the API key ({reason_of(error)}). "
            + key_hint(server.provider)
        )
    if isinstance(error, openai.RateLimitError):
        wait_seconds = retry_after(error)
        wait = f"in {wait_seconds:g} s" if wait_seconds else "in a minute"
        return ModelRateLimitedError(
            f"{subject} is rate-limiting requests or the quota is used up "
            f"({reason_of(error)}). Try again {wait}, or check your plan.",
            retry_after=wait_seconds,
        )
    if isinstance(error, openai.NotFoundError):
        return ModelNotFoundError(
            f"{subject} does not exist ({reason_of(error)}). Pick one of the server's models "
            "in Settings (for Ollama, `ollama pull` it first)."
        )
    if isinstance(error, openai.BadRequestError | openai.UnprocessableEntityError):
        if is_context_length(error):
            return ContextTooLongError(
                f"The conversation is too long for {where} ({reason_of(error)}). Lower the "
                "context budget in Settings or start a new conversation."
            )
        return ModelError(
            f"{subject} refused the request ({reason_of(error)}). Check the model settings."
        )
    if isinstance(error, openai.APIStatusError):
        if error.status_code >= 500:
            return ModelServerError(
                f"The model server at {server.base_url} failed (HTTP {error.status_code}: "
                f"{reason_of(error)}). Retry later; if it persists, check the server's log."
            )
        return ModelError(
            f"{subject} answered HTTP {error.status_code} ({reason_of(error)}). "
            "Check the model settings."
        )
    return unreadable_reply(error, subject)


def key_hint(provider: ProviderName | str) -> str:
    """What to do about a refused key, for this provider: only name an environment
    variable the app reads for it."""
    name = ProviderName(provider)
    variable = ENVIRONMENT_KEYS.get(str(name))
    if variable:
        return f"Enter a valid key in Settings, or set {variable}."
    if name == ProviderName.LOCAL:
        return "The built-in server refused the app's own key: choose Try again to restart it."
    if name == ProviderName.CUSTOM or preset(name).needs_api_key:
        return "Enter the key this server expects in Settings."
    return (
        f"{preset(name).label} doesn't usually ask for a key: check that the address is "
        "the server you meant, or enter the key it expects in Settings."
    )


def reason_of(error: BaseException) -> str:
    if isinstance(error, openai.APIError):
        body = error.body
        if isinstance(body, Mapping) and isinstance(body.get("message"), str):
            return body["message"]
        message = getattr(error, "message", None)
        if message:
            return str(message)
    return str(error) or type(error).__name__


def is_context_length(error: openai.APIStatusError) -> bool:
    code = error.body.get("code") if isinstance(error.body, Mapping) else None
    if code == "context_length_exceeded":
        return True
    text = reason_of(error).lower()
    return any(hint in text for hint in _CONTEXT_LENGTH_HINTS)


def retry_after(error: openai.APIStatusError) -> float | None:
    headers = error.response.headers
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / divisor
        except ValueError:
            continue
    return None
