"""Typed records for the rows of every table (ARCHITECTURE §3).

Repositories build these from rows; services and views pass them around. They are
plain data: no I/O, no serialisation to files (export has its own module).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from acai_desktop.core.custom_instructions import UsedInstructions
from acai_desktop.core.token_usage import TokenUsage


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


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    ERROR = "error"


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


def _json_or_none(text: str | None) -> Any:
    return json.loads(text) if text else None


@dataclass
class Conversation:
    id: int
    title: str
    created_at: str
    updated_at: str
    temporary: bool = False
    #: The title is the first-words stand-in, which the title job may still replace.
    title_auto: bool = False
    #: Kept at the top of the list by the user.
    pinned: bool = False
    #: The project it belongs to (None: outside any project).
    project_id: int | None = None

    @classmethod
    def from_row(cls, row: dict) -> Conversation:
        return cls(
            id=row["id"],
            title=row["title"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            temporary=bool(row["temporary"]),
            title_auto=bool(row.get("title_auto", 0)),
            pinned=bool(row.get("pinned", 0)),
            project_id=row.get("project_id"),
        )


@dataclass(frozen=True)
class Project:
    """A project groups chats, documents and memories (issue 26)."""

    id: int
    name: str
    created_at: str
    updated_at: str
    #: The chat model a chat of the project uses unless it sets its own (None: the
    #: profile's).
    default_model: str | None = None


#: A promoted memory's ``meta`` key: the project it was promoted from (where demoting
#: it takes it back).
PROMOTED_FROM = "promoted_from"


@dataclass(frozen=True)
class ProjectScope:
    """What a chat's memory sees: the memories, messages and documents of its project
    (``project_id``) and those outside any project; never another project's. A chat
    outside any project (``project_id`` None) sees only what is outside every project.
    A search given no scope at all (the evaluations, the MCP server's global tools)
    sees everything."""

    project_id: int | None = None


@dataclass
class Message:
    id: int
    conversation_id: int
    role: str
    content: str
    status: MessageStatus
    created_at: str
    model: str | None = None
    tokens: int | None = None
    folded_into: int | None = None
    error: str | None = None
    plan: dict | None = None
    # Who said it when that is someone else than the user or ACAI (a recorded dialogue
    # imported as a conversation); None for the app's own turns.
    author: str | None = None
    #: An answer's: the user's custom instructions its prompt carried (None: none).
    instructions: UsedInstructions | None = None
    # The message this one follows (None for the first), and whether it is off the
    # shown path (another version or branch is shown at one of its forks).
    parent_id: int | None = None
    hidden: bool = False
    # The alternatives at this message's place, itself included, oldest first: answer
    # versions (Regenerate) or user messages (Edit); filled by the transcript's query,
    # empty when there is one.
    versions: tuple[int, ...] = ()
    #: An answer's: its tokens as the server reported them, and memory's part (None:
    #: written before they were recorded, or not finished).
    usage: TokenUsage | None = None
    #: An answer's: its question as the answer's prompt carried it (the turn's data,
    #: then the user's words); the history of later prompts sends this (see
    #: core.memory.prompt_history). Profiles from before issue 41 kept it on the user's
    #: message itself. None: no prompt was built, or from before it was kept.
    sent_content: str | None = None

    @property
    def version_number(self) -> int:
        """This message's place among :attr:`versions`, from 1 (1 when it has none)."""
        return self.versions.index(self.id) + 1 if self.id in self.versions else 1

    @classmethod
    def from_row(cls, row: dict) -> Message:
        return cls(
            id=row["id"],
            conversation_id=row["conversation_id"],
            role=row["role"],
            content=row["content"],
            status=MessageStatus(row["status"]),
            created_at=row["created_at"],
            model=row["model"],
            tokens=row["tokens"],
            folded_into=row["folded_into"],
            error=row["error"],
            plan=_json_or_none(row["plan"]),
            author=row.get("author"),
            instructions=UsedInstructions.from_json(row.get("instructions")),
            parent_id=row.get("parent_id"),
            hidden=bool(row.get("hidden") or 0),
            usage=TokenUsage.from_json(row.get("usage")),
            sent_content=row.get("sent_content"),
        )


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

    @classmethod
    def from_row(cls, row: dict) -> MemoryItem:
        """The record of a ``memories`` row (a dict with at least :data:`MEMORY_COLUMNS`)."""
        return cls(
            **{name: _MEMORY_FROM_SQL.get(name, same_value)(row[name]) for name in MEMORY_COLUMNS}
        )

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


#: The retrieval tier of a recalled message (the others are the memory kinds).
MESSAGE_TIER = "message"


@dataclass(frozen=True)
class RecalledMessage:
    """A message of a past conversation brought back by episodic recall."""

    id: int
    conversation_id: int
    conversation_title: str
    role: str
    content: str
    created_at: str
    author: str | None = None

    @property
    def speaker(self) -> str:
        """Who said it, as a person reads it."""
        return self.author or ("You" if self.role == "user" else "ACAI")


@dataclass
class AnswerSource:
    """One item that fed an answer (``message_id``): a memory (``memory_id``) or a
    message recalled from a conversation (``recalled_message_id``)."""

    message_id: int
    memory_id: int | None
    rank: int
    score: float
    reasons: list[str]
    recalled_message_id: int | None = None

    @classmethod
    def from_row(cls, row: dict) -> AnswerSource:
        return cls(
            message_id=row["message_id"],
            memory_id=row["memory_id"],
            rank=row["rank"],
            score=row["score"],
            reasons=json.loads(row["reasons"]),
            recalled_message_id=row.get("recalled_message_id"),
        )


@dataclass
class Job:
    id: int
    kind: str
    payload: dict
    status: JobStatus
    attempts: int
    created_at: str
    updated_at: str
    conversation_id: int | None = None
    last_error: str | None = None
    run_after: str | None = None
    #: The answer this job waits for (it runs once that message is no longer streaming).
    wait_for_message_id: int | None = None
    #: How many times the job was queued again after it had failed.
    revivals: int = 0
    #: False when its failure can't be cured by trying again (e.g. invalid content).
    retryable: bool = True

    @classmethod
    def from_row(cls, row: dict) -> Job:
        return cls(
            id=row["id"],
            kind=row["kind"],
            payload=json.loads(row["payload"]),
            status=JobStatus(row["status"]),
            attempts=row["attempts"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            conversation_id=row["conversation_id"],
            last_error=row["last_error"],
            run_after=row["run_after"],
            wait_for_message_id=row.get("wait_for_message_id"),
            revivals=row.get("revivals") or 0,
            retryable=bool(row.get("retryable", 1)),
        )

    def waits_until(self, now: datetime | None = None) -> datetime | None:
        """When a pending job delayed for a retry (e.g. the server's Retry-After) may run;
        None when it may run now, or is not pending."""
        if self.status != JobStatus.PENDING or not self.run_after:
            return None
        at = datetime.fromisoformat(self.run_after)
        return at if at > (now or datetime.now(UTC)) else None

    def to_public_dict(self) -> dict:
        """The job as the command line's --json prints it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "status": str(self.status),
            "payload": self.payload,
            "conversation_id": self.conversation_id,
            "attempts": self.attempts,
            "revivals": self.revivals,
            "retryable": self.retryable,
            "last_error": self.last_error,
            "run_after": self.run_after,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


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


@dataclass(frozen=True)
class ConversationHit:
    """One result of the search box over conversations: a conversation whose title
    matched (``message_id`` None) or one of its messages (with a plain-text snippet
    around the first matched word)."""

    conversation_id: int
    title: str
    message_id: int | None
    snippet: str
    #: When the message was written (a title hit: when the conversation began).
    created_at: str
    role: str | None = None
    temporary: bool = False
