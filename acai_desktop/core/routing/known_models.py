"""What a model can do, as far as its name tells: the known families' capabilities.

A server says little about its models (OpenAI's ``/v1/models`` lists names only), so the
router starts from this table: for each family, by the start of its name as
``context_window.normalised_name`` writes it (the longest matching start wins), whether
it sees images, calls tools and follows a JSON schema, what it is strong at, a quality
tier and, for a cloud provider's models, the price per million tokens. The window lives
in ``context_window.KNOWN_WINDOWS``, the one table of windows.

Quality tiers, 1 to 5, are coarse on purpose: 1 is a tiny model that chats but can't be
trusted with code or arithmetic (the built-in SmolLM2-135M), 2 a small local model (1–4B
parameters), 3 a mid-size one (7–14B) or a cloud provider's small model, 4 a large one
(27–72B) or a cloud provider's main model, 5 a frontier model. A size in the name (":8b",
"-70B", "135M") decides the tier of an open model over its family's default.
Prices are the providers' published list prices in US dollars, as of 2026-12; a user's
own figures replace them (the router's settings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from acai_desktop.core.models.context_window import normalised_name
from acai_desktop.core.routing.turn_kinds import TurnKind

CODE, REASONING, WRITING = TurnKind.CODE, TurnKind.REASONING, TurnKind.WRITING


@dataclass(frozen=True)
class Capabilities:
    quality: int
    vision: bool = False
    tools: bool = False
    json_schema: bool = True
    #: Kinds of turns it is better at than its tier says (a coder model at code).
    strong_at: frozenset[TurnKind] = frozenset()
    #: US dollars per million prompt and answer tokens (0: runs on the user's hardware).
    price_in: float = 0.0
    price_out: float = 0.0
    #: Whether this is the table's knowledge (False: a guess for an unknown name).
    known: bool = True


def _caps(quality: int, *strong: TurnKind, **flags) -> Capabilities:
    return Capabilities(quality, strong_at=frozenset(strong), **flags)


_CLOUD = {"vision": True, "tools": True}
KNOWN_MODELS: dict[str, Capabilities] = {
    # OpenAI
    "gpt5": _caps(5, CODE, REASONING, price_in=1.25, price_out=10.0, **_CLOUD),
    "gpt5mini": _caps(4, CODE, REASONING, price_in=0.25, price_out=2.0, **_CLOUD),
    "gpt5nano": _caps(3, price_in=0.05, price_out=0.40, **_CLOUD),
    "gpt41": _caps(4, CODE, price_in=2.0, price_out=8.0, **_CLOUD),
    "gpt41mini": _caps(3, price_in=0.40, price_out=1.60, **_CLOUD),
    "gpt41nano": _caps(3, price_in=0.10, price_out=0.40, **_CLOUD),
    "gpt4o": _caps(4, price_in=2.50, price_out=10.0, **_CLOUD),
    "gpt4omini": _caps(3, price_in=0.15, price_out=0.60, **_CLOUD),
    "chatgpt4o": _caps(4, price_in=5.0, price_out=15.0, **_CLOUD),
    "o3": _caps(5, CODE, REASONING, price_in=2.0, price_out=8.0, **_CLOUD),
    "o4mini": _caps(4, CODE, REASONING, price_in=1.10, price_out=4.40, **_CLOUD),
    "gptoss": _caps(4, REASONING, tools=True),
    # Anthropic, through an OpenAI-compatible endpoint
    "claude": _caps(5, CODE, WRITING, price_in=3.0, price_out=15.0, **_CLOUD),
    # Google
    "gemini": _caps(4, price_in=0.30, price_out=2.50, **_CLOUD),
    "gemma3": _caps(3, vision=True),
    "gemma": _caps(2),
    # Meta
    "llama32vision": _caps(3, vision=True),
    "llama3": _caps(3, tools=True),
    "llama4": _caps(4, vision=True, tools=True),
    "llava": _caps(2, vision=True, json_schema=False),
    # Alibaba
    "qwen25coder": _caps(3, CODE, tools=True),
    "qwen25vl": _caps(3, vision=True),
    "qwen2vl": _caps(3, vision=True),
    "qwen3vl": _caps(3, vision=True),
    "qwen2": _caps(3, tools=True),
    "qwen3": _caps(3, REASONING, tools=True),
    "qwq": _caps(4, REASONING),
    # Mistral
    "mistral": _caps(3, tools=True),
    "mistralsmall31": _caps(3, vision=True, tools=True),
    "mistralsmall32": _caps(3, vision=True, tools=True),
    "mixtral": _caps(3, tools=True),
    "codestral": _caps(3, CODE),
    "pixtral": _caps(3, vision=True),
    # Microsoft
    "phi4": _caps(3, REASONING),
    "phi3": _caps(2),
    # Small vision models
    "minicpmv": _caps(2, vision=True),
    "moondream": _caps(1, vision=True),
    # DeepSeek
    "deepseekr1": _caps(4, REASONING),
    "deepseekcoder": _caps(3, CODE),
    "deepseekv3": _caps(4, CODE, tools=True),
    # Hugging Face: the built-in model's family
    "smollm": _caps(1, json_schema=True),
}

# "8b", "70B", "0.5b", "135M", "8x7b": a parameter count in the name.
_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z])", re.I)


def parameters_in_billions(model: str) -> float | None:
    """The size a model's name gives ("qwen2.5:0.5b" → 0.5; "SmolLM2-135M" → 0.135)."""
    match = _SIZE.search(model.replace("_", "-"))
    if not match:
        return None
    experts, count, unit = match.groups()
    billions = float(count) / (1000 if unit.lower() == "m" else 1)
    return billions * int(experts) if experts else billions


def tier_for_size(billions: float) -> int:
    if billions < 1:
        return 1
    if billions < 6:
        return 2
    if billions < 20:
        return 3
    if billions < 100:
        return 4
    return 5


def capabilities_of(model: str) -> Capabilities:
    """What the table knows of ``model`` (a size in its name sets an open model's tier);
    an unknown name is a mid-size local model that can't see (``known`` False)."""
    name = normalised_name(model)
    matches = [start for start in KNOWN_MODELS if name.startswith(start)]
    caps = KNOWN_MODELS[max(matches, key=len)] if matches else Capabilities(3, known=False)
    size = parameters_in_billions(model)
    if size is not None and not caps.price_in:
        caps = replace(caps, quality=tier_for_size(size))
    return caps
