"""What a reader makes of an export: plain conversations, checked and ready to store.

A reader checks the whole file before anything is written, and stops at the first
record it can't use with :class:`ImportFileError`, whose one line names that record
("conversation 3 ("Trip to Kyoto"): message 'b2' has no text").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.text import read_utf8
from acai_desktop.core.files.untrusted_json import JsonLimitError, parse_json


class ImportFileError(InvalidInputError):
    """The export can't be imported; nothing was written."""


@dataclass(frozen=True)
class ImportedMessage:
    #: Stable across exports of the same account: "chatgpt:<node id>", "claude:<uuid>".
    source_id: str
    role: str  # user | assistant
    content: str
    created_at: str  # ISO 8601, UTC
    #: Who wrote it when not the user: "ChatGPT", "Claude".
    author: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class ImportedConversation:
    source_id: str
    title: str
    created_at: str
    updated_at: str
    messages: tuple[ImportedMessage, ...]


def iso_from_unix(seconds: float) -> str:
    return datetime.fromtimestamp(float(seconds), UTC).isoformat(timespec="microseconds")


def iso_from_text(text: str) -> str:
    """An ISO 8601 date-time as UTC (a naive one is taken as UTC); ValueError if not one."""
    at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def read_json(path: str | Path, what: str) -> Any:
    """The file's JSON value, or a one-line :class:`ImportFileError` saying why not
    (missing, not UTF-8, cut short, not JSON, nested too deeply, a too long number)."""
    text = read_utf8(path, "nothing was imported", ImportFileError)
    try:
        return parse_json(text)
    except JsonLimitError as beyond:
        raise ImportFileError(f"{path} is not a {what} ACAI can import: {beyond}; nothing "
                              "was imported.") from None  # fmt: skip
    except json.JSONDecodeError as error:
        # A string that never closes runs into the end of the file ("Unterminated
        # string" names where it began); any other error at the very end is a cut too.
        ends_early = error.msg.startswith("Unterminated string") or error.pos >= len(text.rstrip())
        why = "the file ends early (truncated?)" if ends_early else error.msg
        raise ImportFileError(
            f"{path} is not a complete {what} ({why}, line {error.lineno}, column "
            f"{error.colno}); nothing was imported."
        ) from None


def record_name(position: int, title: object, source_id: object) -> str:
    """How an error names a conversation: its place in the file (from 1), title and id."""
    name = f"conversation {position + 1}"
    if isinstance(title, str) and title.strip():
        name += f" ({' '.join(title.split())[:60]!r})"
    if isinstance(source_id, str) and source_id:
        name += f" id {source_id}"
    return name
