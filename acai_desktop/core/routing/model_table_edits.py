"""The user's figures written into ``model-table.json`` (``model_table``'s format), as
Settings → Your models saves them: one model's entry and where its server runs, the file
replaced whole or not at all (``core/files/atomic.py``).

The file is the user's as much as ACAI's: what an edit doesn't name stays as it was —
the other models' entries (a wrong one too: it is the user's to fix), an entry's keys
that are no figures (a note), the file's other keys, their order. A file that can't be
read is never written over: the edit is refused and the file left as it is.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.atomic import write_text_atomically
from acai_desktop.core.routing.known_models import Capabilities
from acai_desktop.core.routing.model_table import (
    FIGURES,
    FILE_NAME,
    address_key,
    entry_problem,
    table_name,
)
from acai_desktop.core.routing.selection import Where

_SAME_FIGURES = ("quality", "vision", "tools", "json_schema", "price_in", "price_out")


@dataclass(frozen=True)
class ModelTableEdit:
    """What one Save in Settings → Your models says of a model and of its server."""

    model: str
    #: The model's figures that differ from the known ones (``FIGURES``' keys); empty:
    #: the known figures count again.
    figures: dict = field(default_factory=dict)
    #: The model's server (None: the built-in one, which runs here: nothing to say).
    base_url: str | None = None
    #: Where that server runs (None: as its address says).
    where: Where | None = None


def edit_model_table(data_dir: Path, edit: ModelTableEdit) -> None:
    """Write ``edit`` into the profile's ``model-table.json``. A wrong figure, or a file
    that can't be read, is an InvalidInputError and the file stays as it was; an edit
    that changes nothing writes nothing."""
    path = data_dir / FILE_NAME
    before = _read(path)
    data = copy.deepcopy(before)  # changed; ``before`` says whether anything was
    set_model_figures(data, edit.model, edit.figures)
    if edit.base_url is not None:
        set_server_where(data, edit.base_url, edit.where)
    if data != before:
        write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise InvalidInputError(
            f"{FILE_NAME} can't be read ({error}), so nothing was changed: "
            "correct the file or move it away, then save again."
        ) from None
    if not isinstance(data, dict) or not all(
        isinstance(data.get(part, {}), dict) for part in ("models", "servers")
    ):
        raise InvalidInputError(
            f'{FILE_NAME} holds no "models" and "servers" objects to add to, so nothing '
            "was changed: correct the file or move it away, then save again."
        )
    return data


def set_model_figures(data: dict, model: str, figures: dict) -> None:
    """Set ``model``'s figures in the table ``data`` (as read from the file); empty
    ``figures``: the known figures count again.

    Its entry is the one whose name reads as the model's (``table_name``: a
    hand-written "Qwen2.5-Coder:7B" is ``qwen2.5-coder:7b``'s); keys that are no figures
    stay in it, and an entry left with nothing goes — unless a shorter start of the
    name has an entry, which an empty one keeps from counting for this model (the
    longest start wins, and its figures are whole)."""
    if not model.strip():
        raise InvalidInputError("Figures need a model's name.")
    unknown = sorted(set(figures) - set(FIGURES))
    if unknown:
        raise InvalidInputError(f"{', '.join(unknown)}: no figure a model's entry holds.")
    if problem := entry_problem(figures):
        raise InvalidInputError(f"{model}'s figures are not saved: {problem}.")
    models = data.get("models", {})
    name = table_name(model)
    named = [key for key in models if table_name(str(key)) == name]
    shorter_start = any(
        name.startswith(table_name(str(key))) and entry_problem(entry) is None
        for key, entry in models.items()
        if key not in named
    )
    _set_entry(data, "models", named or [model], dict(figures), FIGURES, keep=shorter_start)


def set_server_where(data: dict, base_url: str, where: Where | None) -> None:
    """Say in ``data`` where the server at ``base_url`` runs (None: as its address says;
    the user's word goes, the entry's other keys stay)."""
    if not base_url.strip():
        raise InvalidInputError("Where a server runs needs its address.")
    if where is not None and where not in set(Where):
        raise InvalidInputError(f"A server runs on {', '.join(Where)}, not on {where!r}.")
    servers = data.get("servers", {})
    address = address_key(base_url)
    named = [url for url in servers if address_key(str(url)) == address]
    said = {} if where is None else {"where": str(where)}
    _set_entry(data, "servers", named or [base_url.strip().rstrip("/")], said, ("where",))


def _set_entry(
    data: dict, part: str, named: list[str], own: dict, figure_keys, *, keep: bool = False
) -> None:
    """Put ``own`` in ``data[part]``'s last entry of ``named`` (in its place; added at
    the end when new), over its keys that are not ``figure_keys``; it goes when it is
    left with nothing, unless ``keep``. The others of ``named`` (other spellings of the
    same name) keep only their keys that are not ``figure_keys``."""
    entries = data.get(part, {})
    rebuilt = {}
    for key, entry in {**entries, named[-1]: entries.get(named[-1], {})}.items():
        if key not in named:
            rebuilt[key] = entry
            continue
        # A wrong entry (not an object) is the one this edit replaces.
        others = (
            {k: v for k, v in entry.items() if k not in figure_keys}
            if isinstance(entry, dict)
            else {}
        )
        if key == named[-1] and (others or own or keep):
            rebuilt[key] = {**others, **own}
        elif key != named[-1] and others:
            rebuilt[key] = others
    if rebuilt or part in data:
        data[part] = rebuilt


def figures_between(
    known: Capabilities, known_window: int, chosen: Capabilities, chosen_window: int
) -> dict:
    """The figures that make ``known`` (and its window) ``chosen``: only what differs, so
    a figure the user left alone follows ACAI's table; the tier always for a model ACAI
    only guessed at, which the user vouched for."""
    figures = {}
    for key in _SAME_FIGURES:
        mine, theirs = getattr(chosen, key), getattr(known, key)
        if mine != theirs and not (isinstance(mine, float) and math.isclose(mine, theirs)):
            figures[key] = mine
    if chosen.strong_at != known.strong_at:
        figures["strong_at"] = sorted(str(kind) for kind in chosen.strong_at)
    if chosen_window != known_window:
        figures["window_tokens"] = chosen_window
    if not known.known:
        figures["quality"] = chosen.quality
    return {key: figures[key] for key in FIGURES if key in figures}
