"""The memories export file (one JSON document): its format, and reading one back.

Writing and importing it is :mod:`~acai_desktop.core.memory.transfer`.

Format (``acai-desktop-memories``, version 1), UTF-8 JSON::

    {
      "format": "acai-desktop-memories",
      "version": 1,
      "exported_at": "2026-11-29T12:00:00.000000+00:00",
      "memories": [
        {
          "uid": "3f2c...",              # stable identity across profiles (required)
          "content": "I prefer Python for backend development",   # (required)
          "kind": "fact",                # fact | summary | note            (default fact)
          "category": "Preference",      # or null
          "confidence": 0.9,             # 0..1                              (default 1)
          "importance": 0.65,            # 0..1; null or absent = scored on import
          "pinned": false,
          "status": "active",            # active | temporary | superseded | forgotten | conflict
          "origin": "critical_info",     # user | critical_info | summary    (default user)
          "user_edited": false,
          "created_at": "...", "updated_at": "...",   # ISO 8601; absent = time of import
          "use_count": 2, "last_used_at": "..." or null,
          "superseded_by_uid": null,     # uid of the memory that replaced this one
          "conflicts_with_uid": null,    # uid of the memory a conflict row contradicts
          "supersedes_uid": null,        # uid of the memory this one replaced
          "sources": [{"message_id": 12, "created_at": "..."}],   # a bare 12 is accepted
          "history": [{"at": "...", "actor": "user", "action": "edited",
                       "before": {"content": "..."}, "after": {"content": "..."}}],
          "meta": {}                     # any other metadata, kept as is
        }
      ]
    }

Rules:

* **No duplicates.** A memory's ``uid`` is kept in ``meta["uid"]``; importing a file
  twice, or a file exported from this very profile, skips every memory whose uid is
  already present (the local copy wins; it may have been edited since).
* **A bad file changes nothing.** The whole file is validated first (JSON syntax, then
  every field, then the links against the profile); the first problems are reported
  with their place (``line 4, column 17`` or ``memories[3].confidence: ...``) and
  nothing is written. A valid file is written in batches, each its own short
  transaction, so the app beside a long import is not held up. An import stopped
  half-way (killed) keeps the batches it wrote; running it again adds the rest and
  completes the links between them.
* **Sources.** Conversations are not part of the file, and message ids are only
  meaningful in the profile that wrote them. A source is linked on import only if a
  message with that id exists here *and* has the same ``created_at`` (so importing a
  backup into its own profile restores the links, while another profile's message 12
  is never mistaken for it); the others are kept in ``meta["unlinked_sources"]`` so no
  provenance is thrown away, and the import does not fail because of them.
* Embeddings are not exported (they depend on the embedder); imported memories are
  embedded with the current one. ``conversation_id`` is not exported either.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
)

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.text import read_utf8
from acai_desktop.core.files.untrusted_json import JsonLimitError, parse_json
from acai_desktop.core.memory.validation import clean_category, clean_memory_text
from acai_desktop.core.records.memories import Actor, MemoryKind, MemoryStatus, Origin

FORMAT = "acai-desktop-memories"
VERSION = 1
#: meta keys holding a local memory id, exported as ``<key>_uid``.
LINK_KEYS = ("conflicts_with", "supersedes")
MAX_REPORTED_ERRORS = 5
#: Limits on a memory's free-form JSON (``meta``, and a history entry's ``before`` and
#: ``after``): they are stored with the memory and shown in its details, so a 10 MB or a
#: thousand-level-deep value is refused with the place at fault, not choked on.
MAX_META_BYTES = 64 * 1024
MAX_META_DEPTH = 20
#: The largest integer a database column holds (SQLite's and PostgreSQL's bigint).
MAX_STORED_INT = 2**63 - 1


def _iso(text: str) -> str:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 date-time") from None
    return text


def _json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and dicts (iteratively: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_META_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _bounded_json(value: dict | None) -> dict | None:
    if value is None:
        return value
    if _json_depth(value) > MAX_META_DEPTH:
        raise ValueError(f"nested more than {MAX_META_DEPTH} levels deep (the limit)")
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > MAX_META_BYTES:
        raise ValueError(f"{size:,} bytes as JSON; the limit is {MAX_META_BYTES:,} bytes")
    return value


def _source(value: Any) -> Any:
    return (
        {"message_id": value} if isinstance(value, int) and not isinstance(value, bool) else value
    )


Timestamp = Annotated[str, AfterValidator(_iso)]
Unit = Annotated[float, Field(ge=0.0, le=1.0, strict=True)]
Uid = Annotated[str, Field(min_length=1, max_length=200)]
BoundedJson = Annotated[dict, AfterValidator(_bounded_json)]


class _Model(BaseModel):
    # Unknown fields are refused, so a misspelt field is reported instead of dropped.
    model_config = ConfigDict(extra="forbid")


class SourceRef(_Model):
    message_id: Annotated[int, Field(ge=1, le=MAX_STORED_INT, strict=True)]
    created_at: Timestamp | None = None


class HistoryEntry(_Model):
    at: Timestamp
    actor: Actor
    action: Annotated[str, Field(min_length=1, max_length=50)]
    before: BoundedJson | None = None
    after: BoundedJson | None = None


class ExportedMemory(_Model):
    uid: Uid
    content: Annotated[str, AfterValidator(clean_memory_text)]
    kind: MemoryKind = MemoryKind.FACT
    category: Annotated[str | None, AfterValidator(clean_category)] = None
    confidence: Unit = 1.0
    importance: Unit | None = None
    pinned: StrictBool = False
    status: MemoryStatus = MemoryStatus.ACTIVE
    origin: Origin = Origin.USER
    user_edited: StrictBool = False
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    use_count: Annotated[int, Field(ge=0, le=MAX_STORED_INT, strict=True)] = 0
    last_used_at: Timestamp | None = None
    superseded_by_uid: Uid | None = None
    conflicts_with_uid: Uid | None = None
    supersedes_uid: Uid | None = None
    sources: list[Annotated[SourceRef, BeforeValidator(_source)]] = []
    history: list[HistoryEntry] = []
    meta: BoundedJson = {}


class ExportDocument(_Model):
    format: Literal["acai-desktop-memories"]
    version: Literal[1]
    exported_at: Timestamp | None = None
    memories: list[ExportedMemory]


# -- reading a file --------------------------------------------------------------


def _field_path(location: tuple) -> str:
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(the whole file)"


def parse_document(text: str, *, source: str = "the file") -> ExportDocument:
    """Validate an export file's text; :class:`InvalidInputError` says where it's wrong."""
    try:
        data = parse_json(text)
    except json.JSONDecodeError as error:
        raise InvalidInputError(
            f"{source} is not valid JSON: line {error.lineno}, column {error.colno}: {error.msg}."
        ) from None
    except JsonLimitError as beyond:
        raise InvalidInputError(
            f"{source} was not imported; nothing was changed: {beyond}."
        ) from None
    if isinstance(data, dict) and data.get("format") != FORMAT:
        raise InvalidInputError(
            f'{source} is not an ACAI Desktop memories export (its "format" should be '
            f'"{FORMAT}", found {data.get("format")!r}).'
        )
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise InvalidInputError(
            f"{source} was not imported; nothing was changed: this export is from a newer "
            f"ACAI Desktop (format {version}; this one reads format {VERSION}). Update ACAI "
            "Desktop to import it."
        )
    try:
        document = ExportDocument.model_validate(data)
    except ValidationError as error:
        problems = error.errors(include_url=False)
        lines = [
            f"{_field_path(problem['loc'])}: {problem['msg']}"
            for problem in problems[:MAX_REPORTED_ERRORS]
        ]
        more = len(problems) - len(lines)
        if more > 0:
            lines.append(f"... and {more} more")
        raise InvalidInputError(
            f"{source} was not imported; nothing was changed:\n  " + "\n  ".join(lines)
        ) from None
    seen: dict[str, int] = {}
    for position, memory in enumerate(document.memories):
        if memory.uid in seen:
            raise InvalidInputError(
                f"{source} was not imported; nothing was changed:\n  memories[{position}].uid: "
                f"{memory.uid!r} is already used by memories[{seen[memory.uid]}]"
            )
        seen[memory.uid] = position
    _refuse_replacement_cycles(document, source)
    return document


def _refuse_replacement_cycles(document: ExportDocument, source: str) -> None:
    """A memory can't replace itself, nor be replaced by one it replaced (A -> B -> A):
    the history would have no current version, and walking it would never end."""
    position_of = {memory.uid: position for position, memory in enumerate(document.memories)}
    replaced_by: dict[str, set[str]] = {uid: set() for uid in position_of}
    for memory in document.memories:
        for key in ("superseded_by_uid", "conflicts_with_uid", "supersedes_uid"):
            if getattr(memory, key) == memory.uid:
                raise InvalidInputError(
                    f"{source} was not imported; nothing was changed:\n  "
                    f"memories[{position_of[memory.uid]}].{key}: a memory can't name itself "
                    f"({memory.uid!r})"
                )
        if memory.superseded_by_uid in replaced_by:
            replaced_by[memory.uid].add(memory.superseded_by_uid)
        if memory.supersedes_uid in replaced_by:
            replaced_by[memory.supersedes_uid].add(memory.uid)
    # Depth-first walk of the "replaced by" links; a link back into the path is a cycle.
    done: set[str] = set()
    for start in replaced_by:
        if start in done:
            continue
        path, on_path = [start], {start}
        pending = [iter(sorted(replaced_by[start]))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                pending.pop()
                done.add(path[-1])
                on_path.discard(path.pop())
            elif following in on_path:
                cycle = [*path[path.index(following) :], following]
                where = " -> ".join(f"memories[{position_of[uid]}] ({uid!r})" for uid in cycle)
                raise InvalidInputError(
                    f"{source} was not imported; nothing was changed:\n  memories replace "
                    f"each other in a circle: {where}"
                )
            elif following not in done:
                path.append(following)
                on_path.add(following)
                pending.append(iter(sorted(replaced_by[following])))


def read_document(path: str | Path) -> ExportDocument:
    text = read_utf8(path, "nothing was changed")
    return parse_document(text, source=str(path))
