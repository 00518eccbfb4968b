"""What a model call sends and gets back, shared by the client, structured output and
the protocols the rest of the core types its model against (no SDK import here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acai_desktop.core.errors import ModelError

Messages = Sequence[Mapping[str, Any]]


@dataclass
class StreamStats:
    """Filled in by ``stream_chat`` as the stream goes, for callers that want them."""

    finish_reason: str | None = None
    chunks: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: From the request to the first words of the answer (None: no words came).
    first_token_seconds: float | None = None


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class ResponseFormatRefused(ModelError):
    """The server refused a request carrying a response_format (400/422, or a 500 naming
    response_format); structured.py then asks again in a plainer mode. Never leaves
    this package."""
