"""Structured (JSON) output: ask in the strictest form the server accepts, validate with pydantic.

The request goes down ``StructuredMode`` — a JSON schema (OpenAI, Ollama, LM Studio,
llama-server), the schema inside JSON mode (llama-cpp-python, which turns it into a
grammar), plain JSON mode, then no response_format at all — stepping down whenever the
server refuses a mode with 400/422, and remembering the step for the client's lifetime.
Every mode below the JSON schema also spells the schema out in the prompt.

A reply that is empty, huge, cut off, not JSON, or the wrong shape becomes
``StructuredResult(value=None, reason=...)`` with the reason logged (never the reply
itself: it may hold personal facts). Only transport failures raise, as ``ModelError``.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.models.presets import ModelRole, StructuredMode
from acai_desktop.core.models.replies import Completion, Messages, ResponseFormatRefused

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

#: Longer replies are refused unread: no structured answer of ours is anywhere near this.
MAX_REPLY_CHARS = 64 * 1024

_FALLBACK_ORDER = list(StructuredMode)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


class CompletionSource(Protocol):
    """What structured output needs of a client (the ModelClient is one); typed here so
    this module need not import the client, which imports it."""

    base_url: str
    structured_mode: StructuredMode

    def model_for(self, role: ModelRole | str) -> str: ...

    async def create_completion(
        self,
        messages: Messages,
        *,
        role: ModelRole | str = ...,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Completion: ...


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    value: T | None
    reason: str | None = None
    #: The mode the server finally answered in (None if no request got an answer).
    mode: StructuredMode | None = None
    #: The reply text as received (for tests and debugging; not logged).
    raw: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    return schema.model_json_schema()


def response_format_for(mode: StructuredMode, schema: type[BaseModel]) -> dict[str, Any] | None:
    if mode == StructuredMode.JSON_SCHEMA:
        return {
            "type": "json_schema",
            # strict=False: pydantic schemas (optional fields, defaults) are not all valid
            # strict schemas, and validation happens here anyway.
            "json_schema": {"name": schema.__name__, "schema": schema_of(schema), "strict": False},
        }
    if mode == StructuredMode.JSON_OBJECT_SCHEMA:
        return {"type": "json_object", "schema": schema_of(schema)}
    if mode == StructuredMode.JSON_OBJECT:
        return {"type": "json_object"}
    return None


def instructions_for(schema: type[BaseModel]) -> str:
    return (
        "Answer with one JSON object and nothing else: no prose, no code fences. "
        "It must match this JSON schema:\n" + json.dumps(schema_of(schema), separators=(",", ":"))
    )


def with_instructions(messages: Messages, instructions: str) -> list[dict[str, Any]]:
    """The messages with the JSON instructions added to the system message (or a new one
    first): some chat templates reject a system message anywhere but at the start."""
    result = [dict(message) for message in messages]
    if result and result[0].get("role") == "system":
        result[0]["content"] = f"{result[0].get('content') or ''}\n\n{instructions}".strip()
    else:
        result.insert(0, {"role": "system", "content": instructions})
    return result


def parse_structured_reply(
    text: str | None, schema: type[T], *, finish_reason: str | None = None
) -> StructuredResult[T]:
    """Validate a reply; tolerant of code fences and of prose around one JSON object."""
    if text is None or not text.strip():
        return StructuredResult(None, "the reply was empty", raw=text)
    if len(text) > MAX_REPLY_CHARS:
        return StructuredResult(
            None, f"the reply was too large ({len(text)} characters, limit {MAX_REPLY_CHARS})"
        )
    cut_off = " — it was cut off at the token limit" if finish_reason == "length" else ""
    data, error = _load_json(text)
    if error is not None:
        return StructuredResult(None, f"the reply was not valid JSON ({error}){cut_off}", raw=text)
    try:
        value = schema.model_validate(data)
    except ValidationError as problem:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
            for e in problem.errors(include_input=False, include_url=False)[:3]
        )
        return StructuredResult(
            None, f"the reply did not match {schema.__name__} ({details}){cut_off}", raw=text
        )
    return StructuredResult(value, None, raw=text)


def _load_json(text: str) -> tuple[Any, str | None]:
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.insert(0, fenced.group(1).strip())
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        candidates.append(text[first : last + 1])
    first_error = None
    for candidate in candidates:
        try:
            return json.loads(candidate), None
        except json.JSONDecodeError as error:
            first_error = first_error or f"{error.msg} at line {error.lineno} column {error.colno}"
    return None, first_error


async def request_structured(
    client: CompletionSource,
    messages: Messages,
    schema: type[T],
    *,
    role: ModelRole,
    max_tokens: int | None = None,
    temperature: float | None = 0.0,
    model: str | None = None,
) -> StructuredResult[T]:
    """``model``: another model than ``role``'s (the router's choice for a learning job)."""
    model = model or client.model_for(role)
    start = _FALLBACK_ORDER.index(client.structured_mode)
    for mode in _FALLBACK_ORDER[start:]:
        prompt = (
            list(messages)
            if mode == StructuredMode.JSON_SCHEMA
            else with_instructions(messages, instructions_for(schema))
        )
        try:
            completion = await client.create_completion(
                prompt,
                role=role,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=response_format_for(mode, schema),
                model=model,
            )
        except ResponseFormatRefused as refusal:
            log.info(
                "%s refused structured mode %s (%s); trying a plainer one",
                client.base_url,
                mode.value,
                refusal,
            )
            continue
        except ModelReplyError as error:
            return _rejected(StructuredResult(None, str(error), mode=mode), schema, role, model)
        if client.structured_mode != mode:
            # Remember the step down: the next call starts where this one succeeded.
            client.structured_mode = mode
        result = parse_structured_reply(
            completion.text, schema, finish_reason=completion.finish_reason
        )
        result = StructuredResult(result.value, result.reason, mode=mode, raw=result.raw)
        return result if result.ok else _rejected(result, schema, role, model)
    return _rejected(
        StructuredResult(None, "the server refused every way of asking for JSON"),
        schema,
        role,
        model,
    )


def _rejected(
    result: StructuredResult[T], schema: type[T], role: ModelRole, model: str
) -> StructuredResult[T]:
    log.warning("No %s from %s (role %s): %s", schema.__name__, model, role.value, result.reason)
    return result
