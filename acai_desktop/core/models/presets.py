"""Provider presets: where each kind of OpenAI-compatible server usually listens, and its models.

A preset only proposes values; the user's settings (settings.py) hold what is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any


def has_model(listed: Sequence[str], name: str) -> bool:
    """Whether ``name`` is among a server's listed models ("llama3.2" is Ollama's
    "llama3.2:latest")."""
    return name in listed or f"{name}:latest" in listed


class ModelRole(StrEnum):
    """What a call is for; each role has its own model name in the settings."""

    CHAT = "chat"
    TRIAGE = "triage"  # cheap, fast yes/no before extraction
    EXTRACTION = "extraction"
    SUMMARY = "summary"
    EMBEDDING = "embedding"


class StructuredMode(StrEnum):
    """How a server is asked for JSON, from the strictest to none (structured.py falls back
    down this list when a server refuses a mode)."""

    # OpenAI style: response_format={"type": "json_schema", "json_schema": {...}}
    JSON_SCHEMA = "json_schema"
    # llama-cpp-python style: response_format={"type": "json_object", "schema": {...}};
    # its server compiles the schema into a grammar, so even a tiny model answers in shape.
    JSON_OBJECT_SCHEMA = "json_object_schema"
    # Plain JSON mode plus the schema spelled out in the prompt.
    JSON_OBJECT = "json_object"
    # No response_format at all; instructions only.
    TEXT = "text"


class ProviderName(StrEnum):
    OPENAI = "openai"
    OLLAMA = "ollama"
    LMSTUDIO = "lmstudio"
    LLAMACPP = "llamacpp"
    CUSTOM = "custom"
    LOCAL = "local"


@dataclass(frozen=True)
class RoleModels:
    chat: str
    triage: str
    extraction: str
    summary: str
    embedding: str

    @classmethod
    def same(cls, name: str, embedding: str | None = None) -> RoleModels:
        return cls(name, name, name, name, embedding or name)

    def for_role(self, role: ModelRole | str) -> str:
        return getattr(self, ModelRole(role).value)


@dataclass(frozen=True)
class ProviderPreset:
    name: ProviderName
    label: str
    #: None where the address is not fixed: custom (the user types it), local (the app's own
    #: server picks a free port).
    base_url: str | None
    needs_api_key: bool
    models: RoleModels
    structured_mode: StructuredMode
    #: Whether detection probes this address on first start.
    probe_on_first_start: bool = False
    #: A local server that works on one request at a time (one model loaded, one slot):
    #: background work must step aside while the user waits for an answer.
    serves_one_request_at_a_time: bool = False
    #: The longest answer asked for, in tokens (None: the server's own limit). A tiny
    #: model can loop until its context is full: minutes of text nobody wants.
    answer_max_tokens: int | None = None
    #: Fields beyond the OpenAI API sent with every chat request to this kind of server.
    chat_request_fields: Mapping[str, Any] = field(default_factory=dict)
    notes: str = field(default="", compare=False)


OPENAI_BASE_URL = "https://api.openai.com/v1"

#: The name the managed local server gives the bundled model (its alias in llama_cpp.server).
BUNDLED_LOCAL_MODEL = "SmolLM2-135M-Instruct"

PRESETS: dict[ProviderName, ProviderPreset] = {
    ProviderName.OPENAI: ProviderPreset(
        name=ProviderName.OPENAI,
        label="OpenAI",
        base_url=OPENAI_BASE_URL,
        needs_api_key=True,
        models=RoleModels.same("gpt-4o-mini", embedding="text-embedding-3-small"),
        structured_mode=StructuredMode.JSON_SCHEMA,
    ),
    ProviderName.OLLAMA: ProviderPreset(
        name=ProviderName.OLLAMA,
        label="Ollama",
        base_url="http://localhost:11434/v1",
        needs_api_key=False,
        models=RoleModels.same("llama3.2", embedding="nomic-embed-text"),
        structured_mode=StructuredMode.JSON_SCHEMA,
        probe_on_first_start=True,
        serves_one_request_at_a_time=True,
        notes="Pull the models first: ollama pull llama3.2",
    ),
    ProviderName.LMSTUDIO: ProviderPreset(
        name=ProviderName.LMSTUDIO,
        label="LM Studio",
        base_url="http://localhost:1234/v1",
        needs_api_key=False,
        models=RoleModels.same("local-model", embedding="text-embedding-nomic-embed-text-v1.5"),
        structured_mode=StructuredMode.JSON_SCHEMA,
        probe_on_first_start=True,
        serves_one_request_at_a_time=True,
    ),
    ProviderName.LLAMACPP: ProviderPreset(
        name=ProviderName.LLAMACPP,
        label="llama.cpp server",
        base_url="http://localhost:8080/v1",
        needs_api_key=False,
        # llama-server serves the one model it was started with, whatever the name.
        models=RoleModels.same("default"),
        structured_mode=StructuredMode.JSON_SCHEMA,
        probe_on_first_start=True,
        serves_one_request_at_a_time=True,
        # Keep what the server read of this prompt, to read only what is new in the next
        # (the prompt's start stays the same from turn to turn: see context_builder).
        chat_request_fields=MappingProxyType({"cache_prompt": True}),
    ),
    ProviderName.CUSTOM: ProviderPreset(
        name=ProviderName.CUSTOM,
        label="Custom (OpenAI-compatible URL)",
        base_url=None,
        needs_api_key=False,
        models=RoleModels.same("default"),
        structured_mode=StructuredMode.JSON_SCHEMA,
    ),
    ProviderName.LOCAL: ProviderPreset(
        name=ProviderName.LOCAL,
        label="Local (built-in, runs on this computer)",
        base_url=None,
        needs_api_key=False,
        models=RoleModels.same(BUNDLED_LOCAL_MODEL),
        structured_mode=StructuredMode.JSON_OBJECT_SCHEMA,
        serves_one_request_at_a_time=True,
        # A 135M model's long answers ramble, and every token of one is written at a
        # few dozen a second on a laptop CPU. Its length also fills the history: with
        # 320-token answers the history overflowed every 2-3 messages, and each cut
        # made the next message read the rest of the conversation again (6-14 s before
        # its first word in `bench answers`, issue 22); with 160, every 6-7 messages.
        answer_max_tokens=160,
    ),
}


def preset(name: ProviderName | str) -> ProviderPreset:
    return PRESETS[ProviderName(name)]
