"""A conversation as a file: Markdown to read or share, JSON to keep every detail.

Both list every message in order, with its author and time; a stopped or failed answer
says so. The JSON form (``acai-desktop-conversation``, version 2) is lossless: every
version of an answer and every branch, each message with its ``parent_id`` (the
message it follows) and whether it is ``shown``; version 1 had neither (one straight
path). The Markdown one is for people: the shown chat, then the other versions and
branches, each saying what it follows; the assistant's answers are Markdown already,
and the user's messages are quoted as written.
"""

from __future__ import annotations

from pathlib import Path

from acai_desktop import __version__
from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversations.titles import one_line
from acai_desktop.core.errors import StoreError
from acai_desktop.core.files.atomic import write_text_atomically
from acai_desktop.core.records.conversations import Conversation, Message

FORMAT_NAME = "acai-desktop-conversation"
FORMAT_VERSION = 2
FORMATS = ("md", "json")

_STATUS_NOTES = {
    "stopped": "stopped before the end",
    "error": "failed",
    "streaming": "interrupted",
}


def author_of(message: Message) -> str:
    if message.author:
        return message.author
    return "You" if message.role == "user" else "Assistant"


def as_json(conversation: Conversation, messages: list[Message]) -> dict:
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": now_iso(),
        "app_version": __version__,
        "conversation": {
            "id": conversation.id,
            "title": conversation.title,
            "created_at": conversation.created_at,
            "updated_at": conversation.updated_at,
            "temporary": conversation.temporary,
            "pinned": conversation.pinned,
        },
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "author": author_of(m),
                "content": m.content,
                "status": str(m.status),
                "error": m.error,
                "model": m.model,
                "created_at": m.created_at,
                "parent_id": m.parent_id,
                "shown": not m.hidden,
            }
            for m in messages
        ],
    }


def _fence_for(text: str) -> str:
    """A code fence longer than any run of backticks inside ``text``."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def as_markdown(conversation: Conversation, messages: list[Message]) -> str:
    # one_line: a title saved before control characters were refused may hold a NUL.
    title = one_line(conversation.title) or "Untitled conversation"
    lines = [f"# {title}", "", f"*Exported from ACAI Desktop on {now_iso()[:10]}.*", ""]
    shown = [m for m in messages if not m.hidden]
    others = [m for m in messages if m.hidden]
    for message in shown:
        lines += _message_lines(message)
    if others:
        by_id = {m.id: m for m in messages}
        lines += ["---", "", "# Other versions and branches", ""]
        for message in others:
            parent = by_id.get(message.parent_id) if message.parent_id is not None else None
            follows = f"“{_quote(parent.content)}”" if parent else "the start of the chat"
            lines += _message_lines(message, f"after {follows}")
    # A text file holds no NUL (tools stop reading at it); the JSON export keeps it, escaped.
    return "\n".join(lines).replace("\x00", "")


def _quote(text: str, limit: int = 60) -> str:
    line = one_line(text)
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _message_lines(message: Message, where: str | None = None) -> list[str]:
    notes = [n for n in (where, _STATUS_NOTES.get(str(message.status))) if n]
    heading = f"## {author_of(message)} · {message.created_at[:16].replace('T', ' ')}"
    lines = [heading + (f" ({'; '.join(notes)})" if notes else ""), ""]
    if message.role == "user":
        # The user's words as written: in a fence, so nothing in them becomes markup.
        fence = _fence_for(message.content)
        lines += [f"{fence}text", message.content, fence]
    else:
        lines.append(message.content or "*(no answer)*")
    if message.error:
        lines += ["", f"> Error: {' '.join(message.error.split())}"]
    lines.append("")
    return lines


def export_text(conversation: Conversation, messages: list[Message], file_format: str) -> str:
    if file_format == "json":
        import json

        return json.dumps(as_json(conversation, messages), ensure_ascii=False, indent=2) + "\n"
    return as_markdown(conversation, messages)


def write_export(path: str | Path, text: str) -> None:
    """Whole or not at all (see :mod:`~acai_desktop.core.files.atomic`); a place that
    can't be written is a clear error."""
    try:
        write_text_atomically(Path(path), text)
    except OSError as error:
        raise StoreError(f"Cannot write {path}: {error.strerror or error}.") from None
