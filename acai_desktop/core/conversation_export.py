"""A conversation as a file: Markdown to read or share, JSON to keep every detail.

Both list every message in order, with its author and time; a stopped or failed answer
says so. The JSON form (``acai-desktop-conversation``, version 1) is lossless; the
Markdown one is for people: the assistant's answers are Markdown already, and the user's
messages are quoted as written.
"""

from __future__ import annotations

from pathlib import Path

from acai_desktop import __version__
from acai_desktop.core.atomic_files import write_text_atomically
from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversation_titles import one_line
from acai_desktop.core.errors import StoreError
from acai_desktop.core.records import Conversation, Message

FORMAT_NAME = "acai-desktop-conversation"
FORMAT_VERSION = 1
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
    for message in messages:
        note = _STATUS_NOTES.get(str(message.status))
        heading = f"## {author_of(message)} · {message.created_at[:16].replace('T', ' ')}"
        lines += [heading + (f" ({note})" if note else ""), ""]
        if message.role == "user":
            # The user's words as written: in a fence, so nothing in them becomes markup.
            fence = _fence_for(message.content)
            lines += [f"{fence}text", message.content, fence]
        else:
            lines.append(message.content or "*(no answer)*")
        if message.error:
            lines += ["", f"> Error: {' '.join(message.error.split())}"]
        lines.append("")
    # A text file holds no NUL (tools stop reading at it); the JSON export keeps it, escaped.
    return "\n".join(lines).replace("\x00", "")


def export_text(conversation: Conversation, messages: list[Message], file_format: str) -> str:
    if file_format == "json":
        import json

        return json.dumps(as_json(conversation, messages), ensure_ascii=False, indent=2) + "\n"
    return as_markdown(conversation, messages)


def write_export(path: str | Path, text: str) -> None:
    """Whole or not at all (see :mod:`~acai_desktop.core.atomic_files`); a place that
    can't be written is a clear error."""
    try:
        write_text_atomically(Path(path), text)
    except OSError as error:
        raise StoreError(f"Cannot write {path}: {error.strerror or error}.") from None
