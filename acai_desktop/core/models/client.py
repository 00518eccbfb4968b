"""One client for every model role, over a single ``openai.AsyncOpenAI`` kept for the app's life.

Timeouts and retries are chosen, not inherited: a short connect timeout (a server that is
not running is reported in seconds), a generous read timeout (a local model on a laptop CPU
may think for a while before its first token), and two retries with backoff for 429/5xx on
calls that are not streamed. A streamed chat retries once at most, because the person is
watching and gets a Retry button. Every failure leaves as a typed ``ModelError`` whose text
tells the person what happened and what to do.

Every call also has a deadline for the whole of it, however steadily bytes arrive
(:mod:`call_limits`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import openai
from pydantic import BaseModel

from acai_desktop.core.errors import (
    ModelError,
    ModelReplyError,
    ModelTimeoutError,
    ModelUnreachableError,
)
from acai_desktop.core.models.call_limits import CallDeadlines, ClientTimeouts
from acai_desktop.core.models.call_tally import note_model_answered
from acai_desktop.core.models.error_text import (
    ServerInfo,
    is_context_length,
    reason_of,
    translate_error,
    unreadable_reply,
)
from acai_desktop.core.models.presets import ModelRole, ProviderName, StructuredMode, preset
from acai_desktop.core.models.replies import (
    Completion,
    Messages,
    ResponseFormatRefused,
    StreamStats,
)
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.models.streamed_reply import read_whole
from acai_desktop.core.models.structured import StructuredResult, request_structured
from acai_desktop.core.redaction import redacted_error, remember_secret

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

#: Sent when a server needs no key: the SDK insists on one, and a real key must never
#: travel to a server that did not ask for it.
NO_KEY = "not-needed"

#: What the SDK lets through when a body is not the JSON it expected (a broken proxy, a
#: server that is not OpenAI-compatible): a reply problem, not a crash.
_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError)


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
        # Cut from every error text and log line, wherever the server echoes it.
        remember_secret(api_key)
        resolved = base_url or settings.resolved_base_url()
        if not resolved:
            raise ModelUnreachableError(
                "The local model server is not running yet, so there is no address to call. "
                "Start it first (the app does this for the Local provider)."
            )
        self.base_url = resolved.rstrip("/")
        self.timeouts = timeouts or ClientTimeouts(read=settings.read_timeout_seconds)
        self.deadlines = CallDeadlines.from_settings(settings)
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
        #: Fields beyond the OpenAI API that this kind of server understands, sent with
        #: every chat request (None: none; OpenAI itself refuses unknown fields).
        self._server_fields = dict(preset(settings.provider).chat_request_fields) or None
        #: The server refused ``stream_options`` once: streamed answers go without it.
        self._usage_refused = False

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
        model: str | None = None,
    ) -> AsyncIterator[str]:
        """Yield the answer's text deltas as they arrive.

        ``model``: another model than ``role``'s (a chat's own choice). The server is
        asked for the answer's token usage (``stream_options.include_usage``); what it
        reports lands in ``stats``, and a server that reports nothing leaves them None.

        Cancelling the consuming task closes the HTTP stream at once. A consumer that stops
        iterating early (``break``) should wrap the call in ``contextlib.aclosing`` so the
        stream is closed then too, not whenever the generator is collected.
        Raises ``ModelReplyError`` if the stream breaks or ends without a finish reason.
        """
        model = model or self.model_for(role)
        stats = stats if stats is not None else StreamStats()
        loop = asyncio.get_running_loop()
        first_words_by = (asked_at := loop.time()) + self.deadlines.first_token
        finished_by: float | None = None  # set when the first words come

        def deadline() -> float:
            return first_words_by if finished_by is None else finished_by

        try:
            async with asyncio.timeout_at(deadline()) as limit:
                stream = await self._open_stream(model, messages, max_tokens, temperature)
        except TimeoutError as error:
            if not limit.expired():
                raise
            raise self._stream_deadline_passed(model, stats) from error
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        try:
            async with stream:
                chunks = aiter(stream)
                while True:
                    # The timeout wraps only the wait for the next chunk, so it never
                    # cancels the consumer's work between two chunks (which runs while
                    # this generator is paused); the deadline itself is absolute.
                    try:
                        async with asyncio.timeout_at(deadline()) as limit:
                            chunk = await anext(chunks)
                    except StopAsyncIteration:
                        break
                    except TimeoutError as error:
                        if not limit.expired():
                            raise
                        raise self._stream_deadline_passed(model, stats) from error
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
                        if finished_by is None:
                            finished_by = loop.time() + self.deadlines.answer
                            stats.first_token_seconds = loop.time() - asked_at
                        stats.chunks += 1
                        yield delta
        except (openai.OpenAIError, *_UNREADABLE) as error:
            raise redacted_error(
                ModelReplyError(
                    f"The answer from {self._server.where(model)} broke off mid-stream "
                    f"({reason_of(error)}). Retry; if it keeps happening, check the model server."
                )
            ) from error
        if stats.finish_reason is None:
            raise ModelReplyError(
                f"The answer from {self._server.where(model)} ended before it was finished "
                "(the stream stopped without a finish reason). Retry."
            )
        note_model_answered()

    async def _open_stream(
        self,
        model: str,
        messages: Messages,
        max_tokens: int | None,
        temperature: float | None,
    ):
        """The streamed request, asking for the usage figures; a server that refuses
        ``stream_options`` (an older or stricter one) is asked again without it, and
        from then on never with it: its answers say the tokens were not reported."""
        request = {
            "model": model,
            "messages": list(messages),
            "stream": True,
            "extra_body": self._server_fields,
            **_sampling(max_tokens, temperature),
        }
        if not self._usage_refused:
            try:
                return await self._openai_streaming.chat.completions.create(
                    **request, stream_options={"include_usage": True}
                )
            except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
                if "stream_options" not in reason_of(error):
                    raise
                log.info("the server refuses stream_options; usage goes unreported: %s", error)
                self._usage_refused = True
        return await self._openai_streaming.chat.completions.create(**request)

    async def complete(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ModelRole.CHAT,
        max_tokens: int | None = None,
        temperature: float | None = None,
        model: str | None = None,
    ) -> str:
        completion = await self.create_completion(
            messages, role=role, max_tokens=max_tokens, temperature=temperature, model=model
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
        model: str | None = None,
    ) -> Completion:
        """One non-streamed answer with its finish reason and token counts (``model``:
        another model than ``role``'s).

        With a ``response_format``, a 400/422 that is not about the context length raises
        ``ResponseFormatRefused`` so structured output can fall back to a plainer mode."""
        model = model or self.model_for(role)
        request = {
            "model": model,
            "messages": list(messages),
            "extra_body": self._server_fields,
            **_sampling(max_tokens, temperature),
            **({"response_format": response_format} if response_format else {}),
        }
        try:
            if self.stream_replies:
                # Asked for as a stream and read whole (see ``stream_replies``).
                opening = self._openai.chat.completions.create(**request, stream=True)
                completion = await self._within_reply_deadline(
                    read_whole(opening, self._server.where(model)), model
                )
                note_model_answered()
                return completion
            response = await self._within_reply_deadline(
                self._openai.chat.completions.create(**request), model
            )
        except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
            if response_format and not is_context_length(error):
                raise redacted_error(ResponseFormatRefused(reason_of(error))) from error
            raise self._translate(error, model) from error
        except openai.InternalServerError as error:
            # llama-cpp-python answers an unknown response_format type with HTTP 500 and a
            # validation message naming it, not with 400.
            if response_format and "response_format" in reason_of(error):
                raise redacted_error(ResponseFormatRefused(reason_of(error))) from error
            raise self._translate(error, model) from error
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        if not isinstance(response, openai.types.chat.ChatCompletion) or not response.choices:
            raise ModelReplyError(
                f"{self._server.subject(model)} sent a reply with no answer in it. Retry, or check "
                "that the server really speaks the OpenAI chat API."
            )
        note_model_answered()
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )

    async def structured(
        self,
        messages: Messages,
        schema: type[T],
        *,
        role: ModelRole | str,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
        model: str | None = None,
    ) -> StructuredResult[T]:
        """A reply validated against ``schema``; a bad reply gives ``value=None`` and a reason
        (logged), never an exception. Transport failures still raise ``ModelError``.
        ``model``: another model than ``role``'s."""
        return await request_structured(
            self,
            messages,
            schema,
            role=_role(role),
            max_tokens=max_tokens,
            temperature=temperature,
            model=model,
        )

    # -- embeddings and models ----------------------------------------------------

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Raw (not normalised) float32 vectors from /v1/embeddings, one row per text."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = self.model_for(ModelRole.EMBEDDING)
        try:
            response = await self._within_reply_deadline(
                self._openai.embeddings.create(
                    model=model, input=list(texts), encoding_format="float"
                ),
                model,
            )
        except openai.OpenAIError as error:
            raise self._translate(error, model) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, model) from error
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise ModelReplyError(
                f"{self._server.subject(model)} returned {len(rows)} embeddings "
                f"for {len(texts)} texts."
            )
        try:
            return np.asarray([row.embedding for row in rows], dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise ModelReplyError(
                f"{self._server.subject(model)} returned embeddings of unequal or invalid shape."
            ) from error

    async def list_models(self) -> list[str]:
        try:
            page = await self._within_reply_deadline(self._openai.models.list(), None)
        except openai.OpenAIError as error:
            raise self._translate(error, None) from error
        except _UNREADABLE as error:
            raise self._unreadable(error, None) from error
        return [model.id for model in page.data]

    async def server_json(self, path: str, *, body: dict | None = None, timeout: float) -> object:
        """JSON from the server's own API beside the OpenAI one (llama.cpp's ``/props``,
        Ollama's ``/api/show``): ``path`` from the server's root (the base URL less its
        ``/v1``), POSTed when ``body`` is given. One try within ``timeout`` seconds; a
        failure raises as the SDK raised it (openai.OpenAIError): the caller's to read."""
        url = self.base_url.removesuffix("/v1") + path
        quick = self._openai.with_options(timeout=timeout, max_retries=0)
        if body is None:
            return await quick.get(url, cast_to=object)
        return await quick.post(url, cast_to=object, body=body)

    async def close(self) -> None:
        await self._openai.close()

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- errors -------------------------------------------------------------------

    async def _within_reply_deadline(self, call: Awaitable[R], model: str | None) -> R:
        """``call``'s result, or ``ModelTimeoutError`` once the reply deadline has passed
        (a reply still trickling in, a connection held open without an answer)."""
        try:
            async with asyncio.timeout(self.deadlines.reply) as limit:
                return await call
        except TimeoutError as error:
            if not limit.expired():
                raise
            raise self.deadlines.reply_overdue(self._server.subject(model)) from error

    def _stream_deadline_passed(self, model: str, stats: StreamStats) -> ModelTimeoutError:
        return self.deadlines.answer_overdue(
            self._server.subject(model), self._server.where(model), started=stats.chunks > 0
        )

    def _unreadable(self, error: Exception, model: str | None) -> ModelReplyError:
        return redacted_error(unreadable_reply(error, self._server.subject(model)))

    def _translate(self, error: openai.OpenAIError, model: str | None) -> ModelError:
        """The SDK's exception as one of ours, with a message a person can act on (and
        nothing secret in it)."""
        return redacted_error(translate_error(error, self._server, model))


def _sampling(max_tokens: int | None, temperature: float | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    if temperature is not None:
        options["temperature"] = temperature
    return options
