"""One client for every model role, over a single ``openai.AsyncOpenAI`` kept for the app's life.

Timeouts and retries are chosen, not inherited: a short connect timeout (a server that is
not running is reported in seconds), a generous read timeout (a local model on a laptop CPU
may think for a while before its first token), and two retries with backoff for 429/5xx on
calls that are not streamed. A streamed chat retries once at most, because the person is
watching and gets a Retry button. Every failure leaves as a typed ``ModelError`` whose text
tells the person what happened and what to do.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import openai
from pydantic import BaseModel

from acai_desktop.core.errors import ModelError, ModelReplyError, ModelUnreachableError
from acai_desktop.core.llm.error_text import (
    ServerInfo,
    is_context_length,
    reason_of,
    translate_error,
    unreadable_reply,
)
from acai_desktop.core.llm.presets import ModelRole, ProviderName, StructuredMode
from acai_desktop.core.llm.replies import Completion, Messages, ResponseFormatRefused, StreamStats
from acai_desktop.core.llm.settings import ModelSettings
from acai_desktop.core.llm.structured import StructuredResult, request_structured
from acai_desktop.core.redaction import redact

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
ModelErrorT = TypeVar("ModelErrorT", bound=ModelError)

#: Sent when a server needs no key: the SDK insists on one, and a real key must never
#: travel to a server that did not ask for it.
NO_KEY = "not-needed"

#: What the SDK lets through when a body is not the JSON it expected (a broken proxy, a
#: server that is not OpenAI-compatible): a reply problem, not a crash.
_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError)


@dataclass(frozen=True)
class ClientTimeouts:
    connect: float = 5.0
    #: Longest silence between two reads of a reply (also bounds a non-streamed answer).
    read: float = 120.0
    write: float = 30.0
    pool: float = 10.0

    def as_openai(self) -> openai.Timeout:
        return openai.Timeout(
            connect=self.connect, read=self.read, write=self.write, pool=self.pool
        )


def _role(role: ModelRole | str) -> ModelRole:
    return ModelRole(role)


class ModelClient:
    def __init__(
        self,
        settings: ModelSettings,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeouts: ClientTimeouts | None = None,
        max_retries: int = 2,
        stream_max_retries: int = 1,
        unreachable_reason: Callable[[], str | None] | None = None,
        stream_replies: bool | None = None,
    ) -> None:
        """``base_url`` overrides the settings' address (the local server's URL goes here);
        ``api_key`` None sends a placeholder, never the environment's key.

        ``unreachable_reason``: for a server the app manages itself, what it knows about
        why the server is not answering (it died and is restarting, or gave up). A
        connection failure then says that, instead of asking the user to check an
        address they never chose.

        ``stream_replies`` (None: the provider's habit): ask for every reply as a stream,
        even one read whole. A server that answers one request at a time stops a streamed
        reply as soon as its client goes (a closed stream frees it for the user's turn);
        a reply it is not streaming it finishes first, however long it takes."""
        self.settings = settings
        #: Redacted from every error text, wherever the server echoes it.
        self._secrets = (api_key,) if api_key else ()
        resolved = base_url or settings.resolved_base_url()
        if not resolved:
            raise ModelUnreachableError(
                "The local model server is not running yet, so there is no address to call. "
                "Start it first (the app does this for the Local provider)."
            )
        self.base_url = resolved.rstrip("/")
        self.timeouts = timeouts or ClientTimeouts(read=settings.read_timeout_seconds)
        self._openai = openai.AsyncOpenAI(
            api_key=api_key or NO_KEY,
            base_url=self.base_url,
            timeout=self.timeouts.as_openai(),
            max_retries=max_retries,
        )
        # A copy shares the connection pool; only the retry count differs.
        self._openai_streaming = self._openai.with_options(max_retries=stream_max_retries)
        self.structured_mode: StructuredMode = settings.resolved_structured_mode()
        self.stream_replies = (
            settings.serves_one_request_at_a_time() if stream_replies is None else stream_replies
        )
        self._server = ServerInfo(
            self.base_url, settings.provider, self.timeouts.read, unreachable_reason
        )

    @property
    def provider(self) -> ProviderName:
        return self.settings.provider

    def model_for(self, role: ModelRole | str) -> str:
        return self.settings.model_for(_role(role))

    # -- chat ---------------------------------------------------------------------

    async def stream_chat(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ModelRole.CHAT,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stats: StreamStats | None = None,
    ) -> AsyncIterator[str]:
        """Yield the answer's text deltas as they arrive.

        Cancelling the consuming task closes the HTTP stream at once. A consumer that stops
        iterating early (``break``) should wrap the call in ``contextlib.aclosing`` so the
        stream is closed then too, not whenever the generator is collected.
        Raises ``ModelReplyError`` if the stream breaks or ends without a finish reason.
        """
        model = self.model_for(role)
        stats = stats if stats is not None else StreamStats()
        try:
            stream = await self._openai_streaming.chat.completions.create(
                model=model,
                messages=list(messages),
                stream=True,
                **_sampling(max_tokens, temperature),
            )
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        try:
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        stats.prompt_tokens = chunk.usage.prompt_tokens
                        stats.completion_tokens = chunk.usage.completion_tokens
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    if choice.finish_reason:
                        stats.finish_reason = choice.finish_reason
                    delta = choice.delta.content if choice.delta else None
                    if delta:
                        stats.chunks += 1
                        yield delta
        except (openai.OpenAIError, *_UNREADABLE) as error:
            raise self._redacted(
                ModelReplyError(
                    f"The answer from {self._where(model)} broke off mid-stream "
                    f"({reason_of(error)}). Retry; if it keeps happening, check the model server."
                )
            ) from error
        if stats.finish_reason is None:
            raise ModelReplyError(
                f"The answer from {self._where(model)} ended before it was finished "
                "(the stream stopped without a finish reason). Retry."
            )

    async def complete(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ModelRole.CHAT,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        completion = await self.create_completion(
            messages, role=role, max_tokens=max_tokens, temperature=temperature
        )
        return completion.text

    async def create_completion(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ModelRole.CHAT,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Completion:
        """One non-streamed answer with its finish reason and token counts.

        With a ``response_format``, a 400/422 that is not about the context length raises
        ``ResponseFormatRefused`` so structured output can fall back to a plainer mode."""
        model = self.model_for(role)
        extra = {"response_format": response_format} if response_format else {}
        try:
            if self.stream_replies:
                return await self._read_streamed(
                    model, messages, {**_sampling(max_tokens, temperature), **extra}
                )
            response = await self._openai.chat.completions.create(
                model=model,
                messages=list(messages),
                **_sampling(max_tokens, temperature),
                **extra,
            )
        except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
            if response_format and not is_context_length(error):
                raise self._redacted(ResponseFormatRefused(reason_of(error))) from error
            raise self._translate(error, model) from error
        except openai.InternalServerError as error:
            # llama-cpp-python answers an unknown response_format type with HTTP 500 and a
            # validation message naming it, not with 400.
            if response_format and "response_format" in reason_of(error):
                raise self._redacted(ResponseFormatRefused(reason_of(error))) from error
            raise self._translate(error, model) from error
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        if not isinstance(response, openai.types.chat.ChatCompletion) or not response.choices:
            raise ModelReplyError(
                f"{self._subject(model)} sent a reply with no answer in it. Retry, or check "
                "that the server really speaks the OpenAI chat API."
            )
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )

    async def _read_streamed(
        self, model: str, messages: Messages, options: dict[str, Any]
    ) -> Completion:
        """One reply asked for as a stream and read whole (see ``stream_replies``)."""
        stream = await self._openai.chat.completions.create(
            model=model, messages=list(messages), stream=True, **options
        )
        parts: list[str] = []
        finish_reason = None
        prompt_tokens = completion_tokens = None
        async with stream:
            async for chunk in stream:
                if chunk.usage is not None:
                    prompt_tokens = chunk.usage.prompt_tokens
                    completion_tokens = chunk.usage.completion_tokens
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                finish_reason = choice.finish_reason or finish_reason
                if choice.delta and choice.delta.content:
                    parts.append(choice.delta.content)
        if finish_reason is None:
            # llama.cpp's server ends a stream early (no finish reason) when another
            # request waits: a cut reply, not a short one.
            raise ModelReplyError(
                f"The reply from {self._where(model)} ended before it was finished "
                "(the stream stopped without a finish reason)."
            )
        return Completion(
            text="".join(parts),
            finish_reason=finish_reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    async def structured(
        self,
        messages: Messages,
        schema: type[T],
        *,
        role: ModelRole | str,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> StructuredResult[T]:
        """A reply validated against ``schema``; a bad reply gives ``value=None`` and a reason
        (logged), never an exception. Transport failures still raise ``ModelError``."""
        return await request_structured(
            self, messages, schema, role=_role(role), max_tokens=max_tokens, temperature=temperature
        )

    # -- embeddings and models ----------------------------------------------------

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Raw (not normalised) float32 vectors from /v1/embeddings, one row per text."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = self.model_for(ModelRole.EMBEDDING)
        try:
            response = await self._openai.embeddings.create(
                model=model, input=list(texts), encoding_format="float"
            )
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise ModelReplyError(
                f"{self._subject(model)} returned {len(rows)} embeddings for {len(texts)} texts."
            )
        try:
            return np.asarray([row.embedding for row in rows], dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise ModelReplyError(
                f"{self._subject(model)} returned embeddings of unequal or invalid shape."
            ) from error

    async def list_models(self) -> list[str]:
        try:
            page = await self._openai.models.list()
        except openai.OpenAIError as error:
            raise self._translate(error, None) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, None) from error
        return [model.id for model in page.data]

    async def close(self) -> None:
        await self._openai.close()

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- errors -------------------------------------------------------------------

    def _where(self, model: str | None) -> str:
        return self._server.where(model)

    def _subject(self, model: str | None) -> str:
        return self._server.subject(model)

    def _redacted(self, error: ModelErrorT) -> ModelErrorT:
        """``error`` with the key, and anything that looks like one, cut from its text:
        a server's error body may echo the key, and this text is stored, logged, shown."""
        error.args = (redact(str(error), self._secrets), *error.args[1:])
        return error

    def _unreadable(self, error: Exception, model: str | None) -> ModelReplyError:
        return self._redacted(unreadable_reply(error, self._subject(model)))

    def _translate(self, error: openai.OpenAIError, model: str | None) -> ModelError:
        """The SDK's exception as one of ours, with a message a person can act on (and
        nothing secret in it)."""
        return self._redacted(translate_error(error, self._server, model))


def _sampling(max_tokens: int | None, temperature: float | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    if temperature is not None:
        options["temperature"] = temperature
    return options
