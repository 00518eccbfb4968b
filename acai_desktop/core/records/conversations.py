"""Conversations, messages, what fed an answer, and search hits, as rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.turns.token_usage import TokenUsage


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    ERROR = "error"


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
    #: Kept off remote models, with everything it holds (core/store/local_only.py).
    local_only: bool = False

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
            local_only=bool(row.get("local_only", False)),
        )


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
            plan=json.loads(row["plan"]) if row["plan"] else None,
            author=row.get("author"),
            instructions=UsedInstructions.from_json(row.get("instructions")),
            parent_id=row.get("parent_id"),
            hidden=bool(row.get("hidden") or 0),
            usage=TokenUsage.from_json(row.get("usage")),
            sent_content=row.get("sent_content"),
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
