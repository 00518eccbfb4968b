"""The user's own figures for their models, over the known table (issue 42, item 1):
``model-table.json`` in the profile's folder.

A price that changed, a fine-tune the table does not know, a server that runs a model
with a bigger window than its family's: each entry is keyed by the start of a model's
name (as :func:`table_name` writes it: ``"qwen2.5-coder"`` is every size of that family,
``"qwen2.5-coder:7b"`` the 7b alone; the longest start wins, its figures whole) and sets
any of ``quality`` (1–5),
``vision``, ``tools``, ``json_schema``, ``strong_at`` (kinds), ``price_in`` and
``price_out`` (dollars per million tokens) and ``window_tokens``::

    {"models": {"my-finetune": {"quality": 4, "strong_at": ["code"]},
                "gpt-4o": {"price_in": 2.0, "price_out": 8.0}},
     "servers": {"http://127.0.0.1:4000/v1": {"where": "the cloud"}}}

``servers`` says where a server really runs when its address can't tell: a proxy on this
computer that forwards to a cloud provider (LiteLLM, an SSH tunnel) is "the cloud", and
a box down the hall with a public name is "the local network". What the user says wins
over the address, for routing and for the local-only boundary alike.

A file that can't be read, or an entry with a wrong value, is left out and said; the
rest still counts. Settings → Your models writes the file too (``model_table_edits``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from math import inf
from pathlib import Path

from acai_desktop.core.models.context_window import normalised_name
from acai_desktop.core.routing.selection import Candidate, Where, where_it_runs
from acai_desktop.core.routing.turn_kinds import TurnKind

FILE_NAME = "model-table.json"
_FLAGS = ("vision", "tools", "json_schema")
_PRICES = ("price_in", "price_out")
#: The keys of a model's entry that are figures (an entry may hold others: a note).
FIGURES = ("quality", "window_tokens", *_FLAGS, *_PRICES, "strong_at")


@dataclass(frozen=True)
class ModelTable:
    """What the user said of their models (by name start) and their servers (by address)."""

    models: dict[str, dict] = field(default_factory=dict)
    servers: dict[str, Where] = field(default_factory=dict)

    def where(self, base_url: str | None) -> Where:
        """Where the server at ``base_url`` runs: the user's word, else its address."""
        return self.said_where(base_url) or where_it_runs(base_url)

    def said_where(self, base_url: str | None) -> Where | None:
        """Where the user said the server at ``base_url`` runs (None: they didn't)."""
        return None if base_url is None else self.servers.get(address_key(base_url))

    def entry_for(self, model: str) -> tuple[str, dict] | None:
        """The user's entry that counts for ``model`` (the longest start of its name, as
        :func:`table_name` writes it) and that start; None: the known figures count."""
        name = table_name(model)
        starts = [start for start in self.models if name.startswith(start)]
        if not starts:
            return None
        start = max(starts, key=len)
        return start, self.models[start]


def table_name(model: str) -> str:
    """The name an entry is keyed and matched by: ``normalised_name``'s with Ollama's
    tag kept ("qwen2.5-coder:7b" → "qwen25coder7b"), so that an entry can name one size
    and an entry without a tag every size of a family."""
    tag = model.strip().lower().rsplit("/", 1)[-1].partition(":")[2]
    return normalised_name(model) + re.sub(r"[^a-z0-9]", "", tag)


def address_key(base_url: str) -> str:
    """A server's address as ``servers`` is keyed by (no trailing slash, any case)."""
    return base_url.strip().rstrip("/").lower()


def load_model_table(data_dir: Path) -> tuple[ModelTable, list[str]]:
    """The user's entries, and what was wrong with the file (sentences)."""
    path = data_dir / FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ModelTable(), []
    except (OSError, ValueError) as error:
        return ModelTable(), [f"{FILE_NAME} can't be read ({error}); the known figures are used."]
    models = data.get("models", {}) if isinstance(data, dict) else None
    servers = data.get("servers", {}) if isinstance(data, dict) else None
    if not isinstance(models, dict) or not isinstance(servers, dict):
        return ModelTable(), [
            f'{FILE_NAME} needs a "models" or a "servers" object; the known figures are used.'
        ]
    table, problems = ModelTable(), []
    for name, entry in models.items():
        problem = entry_problem(entry)
        if problem:
            problems.append(f"{FILE_NAME}: {name!r} is left out: {problem}.")
        else:
            table.models[table_name(str(name))] = entry
    places = {str(where) for where in Where}
    for url, entry in servers.items():
        said = entry.get("where") if isinstance(entry, dict) else None
        if said in places:
            table.servers[address_key(str(url))] = Where(said)
        else:
            problems.append(
                f"{FILE_NAME}: server {url!r} is left out: "
                f'"where" must be one of {", ".join(sorted(places))}.'
            )
    return table, problems


def entry_problem(entry: object) -> str | None:
    """What is wrong with a model's entry, in words (None: nothing)."""
    if not isinstance(entry, dict):
        return "it must be an object"
    quality = entry.get("quality")
    if quality is not None and (not _whole(quality) or not 1 <= quality <= 5):
        return "quality must be a whole number from 1 to 5"
    if any(not isinstance(entry.get(flag, False), bool) for flag in _FLAGS):
        return f"{', '.join(_FLAGS)} must be true or false"
    for price in _PRICES:
        value = entry.get(price, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < inf:
            return f"{price} must be a number of dollars, 0 or more"
    window = entry.get("window_tokens")
    if window is not None and (not _whole(window) or window < 256):
        return "window_tokens must be a whole number of tokens, 256 or more"
    strong = entry.get("strong_at", [])
    kinds = {kind.value for kind in TurnKind}
    if not isinstance(strong, list) or any(kind not in kinds for kind in strong):
        return f"strong_at must list kinds among {', '.join(sorted(kinds))}"
    return None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON's true is no tier


def with_model_table(candidate: Candidate, table: ModelTable) -> Candidate:
    """``candidate`` with the user's figures for it, where they have any."""
    found = table.entry_for(candidate.model)
    if found is None:
        return candidate
    entry = found[1]
    caps = candidate.capabilities
    changes = {key: entry[key] for key in (*_FLAGS, *_PRICES, "quality") if key in entry}
    if "strong_at" in entry:
        changes["strong_at"] = frozenset(TurnKind(kind) for kind in entry["strong_at"])
    caps = replace(caps, **changes, known=True) if changes else caps
    window = entry.get("window_tokens", candidate.window_tokens)
    return replace(candidate, capabilities=caps, window_tokens=window)
