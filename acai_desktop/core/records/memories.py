"""Memories, their history and the suggestions made of facts, as rows."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any


class MemoryKind(StrEnum):
    FACT = "fact"
    SUMMARY = "summary"
    NOTE = "note"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"
    CONFLICT = "conflict"
    # Kept by the policy below its threshold: visible in the panel, not retrieved,
    # promoted to active when a later message reinforces it.
    TEMPORARY = "temporary"

    @property
    def is_current(self) -> bool:
        """Still the user's memory (the panel shows it; it can be edited, pinned,
        forgotten): active, temporary, or a conflict waiting for a decision. Superseded
        and forgotten memories live on only in history."""
        return self in CURRENT_MEMORY_STATUSES


#: The one rule of which memories are current (:attr:`MemoryStatus.is_current`).
CURRENT_MEMORY_STATUSES = frozenset(
    {MemoryStatus.ACTIVE, MemoryStatus.TEMPORARY, MemoryStatus.CONFLICT}
)


class Origin(StrEnum):
    USER = "user"
    CRITICAL_INFO = "critical_info"
    SUMMARY = "summary"


class Actor(StrEnum):
    USER = "user"
    SUMMARY_PROCESSOR = "summary_processor"
    CRITICAL_INFO_PROCESSOR = "critical_info_processor"
    SYSTEM = "system"

    @property
    def is_processor(self) -> bool:
        """A background processor: it may never change a protected memory."""
        return self in (Actor.SUMMARY_PROCESSOR, Actor.CRITICAL_INFO_PROCESSOR)


def _json_or_none(text: str | None) -> Any:
    return json.loads(text) if text else None


@dataclass
class MemoryItem:
    id: int
    kind: MemoryKind
    content: str
    origin: Origin
    created_at: str
    updated_at: str
    category: str | None = None
    confidence: float = 1.0
    importance: float = 0.5
    pinned: bool = False
    status: MemoryStatus = MemoryStatus.ACTIVE
    user_edited: bool = False
    superseded_by: int | None = None
    conversation_id: int | None = None
    last_used_at: str | None = None
    use_count: int = 0
    embedding_model: str | None = None
    meta: dict = field(default_factory=dict)
    #: The project it belongs to (None: everywhere). See :class:`ProjectScope`.
    project_id: int | None = None
    #: Marked by the user: never in a remote model's prompt (core/store/local_only.py;
    #: a memory of a local-only chat or project is kept with it too).
    local_only: bool = False
    #: When it was last said or confirmed (a restatement, "Still true", an edit); None:
    #: as of when it was learned. See :attr:`said_at` and core/memory/fact_ages.py.
    as_of: str | None = None

    @classmethod
    def from_row(cls, row: dict) -> MemoryItem:
        """The record of a ``memories`` row (a dict with at least :data:`MEMORY_COLUMNS`)."""
        return cls(
            **{name: _MEMORY_FROM_SQL.get(name, same_value)(row[name]) for name in MEMORY_COLUMNS}
        )

    @property
    def said_at(self) -> str:
        """When the memory was last said or confirmed (ISO, UTC)."""
        return self.as_of or self.created_at

    @property
    def protected(self) -> bool:
        """Pinned or user-edited: no processor may change it (ARCHITECTURE §1)."""
        return self.pinned or self.user_edited

    def to_public_dict(self) -> dict:
        """The JSON shape the command line prints (``--json``) and history records:
        every column but the derived and free-form ones."""
        return {
            name: value.value if isinstance(value, StrEnum) else value
            for name in PUBLIC_MEMORY_COLUMNS
            for value in (getattr(self, name),)
        }


def same_value(value: Any) -> Any:
    """A column read as it is (see :data:`MEMORY_CONVERTERS`)."""
    return value


#: The columns of ``memories`` that a :class:`MemoryItem` holds, in its field order (the
#: embedding itself stays in the database). Column lists elsewhere derive from this.
MEMORY_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(MemoryItem))


#: Every column but the embedding model (derived data) and meta (free-form).
PUBLIC_MEMORY_COLUMNS = tuple(c for c in MEMORY_COLUMNS if c not in ("embedding_model", "meta"))


def _member_of(enum_type: type[StrEnum]) -> Any:
    """``enum_type(value)`` as one dict lookup for its members' values (a search builds
    a record per hit; the enum's own lookup was a third of that); any other value goes
    through the enum, which raises as before."""
    members = {member.value: member for member in enum_type}

    def convert(value: Any) -> StrEnum:
        member = members.get(value)
        return enum_type(value) if member is None else member

    return convert


def _dict_of(text: str | None) -> dict:
    """A JSON object column: ``{}`` for none (most rows hold "{}": no parse for it)."""
    return {} if text == "{}" else _json_or_none(text) or {}


# How a column's SQLite value becomes the field's type, by the field's annotation.
_CONVERTERS: dict[str, Any] = {
    "MemoryKind": _member_of(MemoryKind),
    "Origin": _member_of(Origin),
    "MemoryStatus": _member_of(MemoryStatus),
    "bool": bool,
    "dict": _dict_of,
}


_MEMORY_FROM_SQL = {
    f.name: _CONVERTERS[f.type] for f in fields(MemoryItem) if f.type in _CONVERTERS
}


#: How each column of :data:`MEMORY_COLUMNS`, in order, becomes its field (a row read
#: in that order becomes a record without a dict per row: retrieval's hot path).
MEMORY_CONVERTERS: tuple[Any, ...] = tuple(
    _MEMORY_FROM_SQL.get(name, same_value) for name in MEMORY_COLUMNS
)


#: Boolean, enum and JSON columns, which need converting on their way into SQLite.
MEMORY_FLAG_COLUMNS = tuple(f.name for f in fields(MemoryItem) if f.type == "bool")


MEMORY_ENUM_COLUMNS = tuple(
    f.name for f in fields(MemoryItem) if f.type in ("MemoryKind", "Origin", "MemoryStatus")
)


MEMORY_JSON_COLUMNS = tuple(f.name for f in fields(MemoryItem) if f.type == "dict")


@dataclass
class MemoryEvent:
    id: int
    memory_id: int
    at: str
    actor: Actor
    action: str
    before: dict | None
    after: dict | None

    @classmethod
    def from_row(cls, row: dict) -> MemoryEvent:
        return cls(
            id=row["id"],
            memory_id=row["memory_id"],
            at=row["at"],
            actor=Actor(row["actor"]),
            action=row["action"],
            before=_json_or_none(row["before"]),
            after=_json_or_none(row["after"]),
        )


class SuggestionStatus(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


@dataclass(frozen=True)
class Suggestion:
    id: int
    message_id: int
    conversation_id: int | None
    content: str
    category: str
    confidence: float
    status: SuggestionStatus
    memory_id: int | None
    created_at: str
    #: Who proposed it from outside the app ("Claude Desktop via MCP"); None: ACAI.
    via: str | None = None

    @classmethod
    def from_row(cls, row: dict) -> Suggestion:
        values = {f.name: row[f.name] for f in fields(cls)}
        return cls(**{**values, "status": SuggestionStatus(row["status"])})


@dataclass(frozen=True)
class SuggestionDraft:
    """A fact the processor found, to be proposed to the user for one message."""

    message_id: int
    conversation_id: int | None
    content: str
    #: The content's comparison form: the same fact is proposed once per message.
    normalised: str
    category: str
    confidence: float
    via: str | None = None
