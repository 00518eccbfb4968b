"""The user's own figures for their models, over the known table (issue 42, item 1):
``model-table.json`` in the profile's folder.

A price that changed, a fine-tune the table does not know, a server that runs a model
with a bigger window than its family's: each entry is keyed by the start of a model's
name (as ``context_window.normalised_name`` writes it, so ``"qwen2.5-coder"`` matches
``qwen2.5-coder:7b``; the longest start wins) and sets any of ``quality`` (1–5),
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
rest still counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from acai_desktop.core.models.context_window import normalised_name
from acai_desktop.core.routing.selection import Candidate, Where, where_it_runs
from acai_desktop.core.routing.turn_kinds import TurnKind

FILE_NAME = "model-table.json"
_FLAGS = ("vision", "tools", "json_schema")
_PRICES = ("price_in", "price_out")


@dataclass(frozen=True)
class ModelTable:
    """What the user said of their models (by name start) and their servers (by address)."""

    models: dict[str, dict] = field(default_factory=dict)
    servers: dict[str, Where] = field(default_factory=dict)

    def where(self, base_url: str | None) -> Where:
        """Where the server at ``base_url`` runs: the user's word, else its address."""
        if base_url is not None and (said := self.servers.get(_address(base_url))):
            return said
        return where_it_runs(base_url)


def _address(base_url: str) -> str:
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
        problem = _problem_of(entry)
        if problem:
            problems.append(f"{FILE_NAME}: {name!r} is left out: {problem}.")
        else:
            table.models[normalised_name(str(name))] = entry
    places = {str(where) for where in Where}
    for url, entry in servers.items():
        said = entry.get("where") if isinstance(entry, dict) else None
        if said in places:
            table.servers[_address(str(url))] = Where(said)
        else:
            problems.append(
                f"{FILE_NAME}: server {url!r} is left out: "
                f'"where" must be one of {", ".join(sorted(places))}.'
            )
    return table, problems


def _problem_of(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return "it must be an object"
    quality = entry.get("quality")
    if quality is not None and (not isinstance(quality, int) or not 1 <= quality <= 5):
        return "quality must be a whole number from 1 to 5"
    if any(not isinstance(entry.get(flag, False), bool) for flag in _FLAGS):
        return f"{', '.join(_FLAGS)} must be true or false"
    for price in _PRICES:
        value = entry.get(price, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return f"{price} must be a number of dollars, 0 or more"
    window = entry.get("window_tokens")
    if window is not None and (not isinstance(window, int) or window < 256):
        return "window_tokens must be a whole number of tokens, 256 or more"
    strong = entry.get("strong_at", [])
    kinds = {kind.value for kind in TurnKind}
    if not isinstance(strong, list) or any(kind not in kinds for kind in strong):
        return f"strong_at must list kinds among {', '.join(sorted(kinds))}"
    return None


def with_model_table(candidate: Candidate, table: ModelTable) -> Candidate:
    """``candidate`` with the user's figures for it, where they have any."""
    name = normalised_name(candidate.model)
    starts = [start for start in table.models if name.startswith(start)]
    if not starts:
        return candidate
    entry = table.models[max(starts, key=len)]
    caps = candidate.capabilities
    changes = {key: entry[key] for key in (*_FLAGS, *_PRICES, "quality") if key in entry}
    if "strong_at" in entry:
        changes["strong_at"] = frozenset(TurnKind(kind) for kind in entry["strong_at"])
    caps = replace(caps, **changes, known=True) if changes else caps
    window = entry.get("window_tokens", candidate.window_tokens)
    return replace(candidate, capabilities=caps, window_tokens=window)
