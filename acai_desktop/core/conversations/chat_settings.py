"""A chat's model settings: its own model, temperature and context budget, and the one
place that says which settings a chat's turns use (:func:`effective_settings`).

A context budget is a number or automatic (:data:`AUTOMATIC` in a layer, None in the
profile's): automatic follows the chat's model's context window, by the rule of
:mod:`acai_desktop.core.models.prompt_budget`, applied here to the layer that decided.

Each of the three is either the chat's own choice (made in the chat's header) or unset,
and an unset one is taken from the next layer down: the chat's own, then (issue 26)
the default of the chat's project, then the profile's model settings. Resolving is done
here only, so a new layer is one more argument, not one more rule in each caller.

The profile has no temperature: unset all the way down means none is sent, and the
server's default applies, as before chats had settings. Background learning (triage,
extraction, summaries) never reads a chat's settings: it keeps the profile's models.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from types import MappingProxyType

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.context_window import ContextWindow
from acai_desktop.core.models.prompt_budget import (
    AUTOMATIC,
    MAX_BUDGET_TOKENS,
    MIN_BUDGET_TOKENS,
    PromptBudget,
    resolve_budget,
)

#: What a chat may ask for: the same bounds as the profile's settings (and the API's).
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.0, 2.0
MAX_MODEL_NAME_CHARS = 200
#: The routing policies by name (core.routing.selection.Policy), and "off": no routing.
ROUTING_CHOICES = ("best", "balanced", "cheapest", "fastest", "local_only", "off")


class SettingScope(StrEnum):
    """Where an effective setting came from."""

    PROFILE = "profile"  # Settings: every chat
    PROJECT = "project"  # the chat's project's default (issue 26)
    CHAT = "chat"  # this chat's own, from its header


@dataclass(frozen=True)
class ChatSettings:
    """Settings of one layer (a chat's own, a project's default); None: not set there."""

    model: str | None = None
    temperature: float | None = None
    #: A number of tokens, or AUTOMATIC (0): follow the model's window.
    context_budget_tokens: int | None = None
    #: How each turn's model is chosen (core.routing): a policy's name, or "off" (the
    #: chat's model always).
    routing: str | None = None

    @property
    def empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))

    def to_json(self) -> str | None:
        """The stored form (None: nothing set, stored as NULL)."""
        if self.empty:
            return None
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> ChatSettings:
        """What is stored; a value this version can't read counts as unset."""
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        try:
            return clean_chat_settings(
                data.get("model"),
                data.get("temperature"),
                data.get("context_budget_tokens"),
                data.get("routing"),
            )
        except InvalidInputError:
            return cls()


def clean_chat_settings(
    model: object = None,
    temperature: object = None,
    context_budget_tokens: object = None,
    routing: object = None,
) -> ChatSettings:
    """The user's choices as settings; InvalidInputError (one line) for a value that
    can't be used. An empty model name is unset."""
    name = None
    if model is not None:
        if not isinstance(model, str):
            raise InvalidInputError("The model's name must be text.")
        name = " ".join(model.split()) or None
        if name is not None and len(name) > MAX_MODEL_NAME_CHARS:
            raise InvalidInputError(
                f"The model's name is {len(name)} characters long; at most "
                f"{MAX_MODEL_NAME_CHARS} are accepted."
            )
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            raise InvalidInputError("The temperature must be a number.")
        if not math.isfinite(temperature) or not (
            MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE
        ):
            raise InvalidInputError(
                f"The temperature must be between {MIN_TEMPERATURE:g} and {MAX_TEMPERATURE:g}."
            )
        temperature = round(float(temperature), 2)
    if context_budget_tokens is not None:
        if isinstance(context_budget_tokens, bool) or not isinstance(context_budget_tokens, int):
            raise InvalidInputError("The context budget must be a whole number of tokens.")
        if context_budget_tokens != AUTOMATIC and not (
            MIN_BUDGET_TOKENS <= context_budget_tokens <= MAX_BUDGET_TOKENS
        ):
            raise InvalidInputError(
                f"The context budget must be between {MIN_BUDGET_TOKENS:,} and "
                f"{MAX_BUDGET_TOKENS:,} tokens."
            )
    if routing is not None and routing not in ROUTING_CHOICES:
        raise InvalidInputError(
            f"How each answer's model is chosen must be one of {', '.join(ROUTING_CHOICES)}."
        )
    return ChatSettings(name, temperature, context_budget_tokens, routing)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ProfileChatDefaults:
    """The profile's part: what every chat uses unless a layer above says otherwise."""

    model: str | None  # None: no model could be started
    context_budget_tokens: int | None  # None: automatic, it follows the model's window
    temperature: float | None = None  # the profile sends none: the server's default
    #: The longest answer asked for (None: the server's limit): an automatic budget
    #: leaves it room in the window.
    answer_max_tokens: int | None = None
    #: The models run on the app's own server, whose automatic budget stays small.
    built_in_server: bool = False
    #: Settings' routing policy (None: the chat's model always).
    routing: str | None = None


@dataclass(frozen=True)
class EffectiveSettings:
    """What a chat's turns run with, and where each value came from."""

    model: str | None
    temperature: float | None
    #: The budget's number, automatic ones worked out (``budget`` says how).
    context_budget_tokens: int
    #: By field name ("model", "temperature", "context_budget_tokens").
    scopes: Mapping[str, SettingScope]
    #: The budget, and how it was worked out (for the header's tooltip, the dialogs).
    budget: PromptBudget
    #: The routing policy's name; None or "off": the chat's model answers every turn.
    routing: str | None = None

    def scope_of(self, name: str) -> SettingScope:
        return self.scopes[name]

    @property
    def own_model(self) -> str | None:
        """The model when a layer above the profile chose it (None: the profile's)."""
        return self.model if self.scopes["model"] != SettingScope.PROFILE else None


def effective_settings(
    profile: ProfileChatDefaults,
    chat: ChatSettings | None = None,
    *,
    project: ChatSettings | None = None,
    window: ContextWindow | None = None,
) -> EffectiveSettings:
    """The settings a chat's turns use: each from the chat's own choice, else its
    project's default, else the profile's; an automatic budget from ``window``, the
    effective model's context window (None: not known)."""
    layers = [(SettingScope.CHAT, chat), (SettingScope.PROJECT, project)]
    chosen: dict[str, object] = {}
    scopes: dict[str, SettingScope] = {}
    for field in fields(ChatSettings):
        name = field.name
        chosen[name], scopes[name] = getattr(profile, name), SettingScope.PROFILE
        for scope, layer in layers:
            value = getattr(layer, name) if layer is not None else None
            if value is not None:
                chosen[name], scopes[name] = value, scope
                break
    budget = resolve_budget(
        chosen["context_budget_tokens"],  # type: ignore[arg-type]
        window,
        answer_max_tokens=profile.answer_max_tokens,
        built_in_server=profile.built_in_server,
    )
    return EffectiveSettings(
        model=chosen["model"],  # type: ignore[arg-type]
        temperature=chosen["temperature"],  # type: ignore[arg-type]
        context_budget_tokens=budget.tokens,
        scopes=MappingProxyType(scopes),
        budget=budget,
        routing=chosen["routing"],  # type: ignore[arg-type]
    )


def effective_model(
    profile: ProfileChatDefaults,
    chat: ChatSettings | None = None,
    *,
    project: ChatSettings | None = None,
) -> str | None:
    """The model a chat's turns use (whose window an automatic budget follows)."""
    return effective_settings(profile, chat, project=project).model
