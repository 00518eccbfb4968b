"""Claude's data export: ``conversations.json``.

The file is a list of conversations: ``uuid``, ``name`` (the title), ``created_at``,
``updated_at`` (ISO 8601) and ``chat_messages`` in order, each with ``uuid``,
``sender`` (``human`` or ``assistant``), ``created_at``, ``text`` and, in newer
exports, ``content`` blocks (``{"type": "text", "text": ...}``, tool use, tool
results). The text blocks are the message's words; without them, ``text`` is.
Attachments and tool traffic are left out.

Newer exports keep the tree of an edited question or a regenerated answer:
``chat_messages`` then holds every branch, each message naming its
``parent_message_uuid``, and the conversation names the leaf the user saw last,
``current_leaf_message_uuid`` (else the message written last is taken as that leaf).
The path from that leaf up to the root is imported; an export without parents is
taken in its order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acai_desktop.core.conversations.chat_import.model import (
    ImportedConversation,
    ImportedMessage,
    ImportFileError,
    iso_from_text,
    read_json,
    record_name,
)

SOURCE = "claude"
AUTHOR = "Claude"
_ROLES = {"human": "user", "assistant": "assistant"}


def read_claude_export(path: str | Path) -> list[ImportedConversation]:
    return parse_claude_export(read_json(path, "Claude export"))


def parse_claude_export(data: Any) -> list[ImportedConversation]:
    if not isinstance(data, list):
        raise ImportFileError(
            "This is not Claude's conversations.json: it should be a list of conversations."
        )
    return [_conversation(position, raw) for position, raw in enumerate(data)]


def _time(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ImportFileError(f"{where} is missing or not a date-time: {value!r}")
    try:
        return iso_from_text(value)
    except ValueError:
        raise ImportFileError(f"{where} is not an ISO 8601 date-time: {value!r}") from None


def _conversation(position: int, raw: Any) -> ImportedConversation:
    if not isinstance(raw, dict):
        raise ImportFileError(f"conversation {position + 1} is not an object.")
    uuid = raw.get("uuid")
    name = record_name(position, raw.get("name"), uuid)
    if not isinstance(uuid, str) or not uuid:
        raise ImportFileError(f"{name} has no uuid.")
    created = _time(raw.get("created_at"), f"{name}: created_at")
    updated = (
        _time(raw.get("updated_at"), f"{name}: updated_at")
        if raw.get("updated_at") is not None
        else created
    )
    raw_messages = raw.get("chat_messages")
    if not isinstance(raw_messages, list):
        raise ImportFileError(f"{name} has no chat_messages list.")
    checked = [
        (raw_message, _message(f"{name}: message {index + 1}", raw_message, created))
        for index, raw_message in enumerate(raw_messages)
    ]
    shown = _shown_branch(name, checked, raw.get("current_leaf_message_uuid"))
    messages = [message for message in shown if message is not None]
    title = raw.get("name") if isinstance(raw.get("name"), str) else ""
    last = messages[-1].created_at if messages else created
    return ImportedConversation(
        source_id=f"{SOURCE}:{uuid}",
        title=" ".join(title.split()),
        created_at=created,
        updated_at=max(updated, last),
        messages=tuple(messages),
    )


def _shown_branch(
    name: str, checked: list[tuple[dict, ImportedMessage | None]], leaf: Any
) -> list[ImportedMessage | None]:
    """The messages from the root to the leaf shown last (all, in order, without parents)."""
    if not any("parent_message_uuid" in raw for raw, _ in checked):
        return [message for _, message in checked]
    by_uuid = {raw["uuid"]: (raw, message) for raw, message in checked}
    if leaf not in by_uuid:
        parents = {raw.get("parent_message_uuid") for raw, _ in checked}
        leaves = [raw for raw, _ in checked if raw["uuid"] not in parents]
        if not leaves:
            raise ImportFileError(f"{name}: its messages' parents make a loop.")
        leaf = max(leaves, key=lambda raw: str(raw.get("created_at") or ""))["uuid"]
    path, seen = [], set()
    while leaf in by_uuid:
        if leaf in seen:
            raise ImportFileError(f"{name}: its messages' parents make a loop at {leaf!r}.")
        seen.add(leaf)
        raw, message = by_uuid[leaf]
        path.append(message)
        leaf = raw.get("parent_message_uuid")  # the root's parent is no message
    path.reverse()
    return path


def _message(where: str, raw: Any, fallback_time: str) -> ImportedMessage | None:
    if not isinstance(raw, dict):
        raise ImportFileError(f"{where} is not an object.")
    uuid = raw.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        raise ImportFileError(f"{where} has no uuid.")
    where = f"{where} ({uuid})"
    role = _ROLES.get(raw.get("sender"))
    if role is None:
        raise ImportFileError(f"{where}: sender {raw.get('sender')!r} is not human or assistant.")
    text = _text(where, raw)
    if not text:
        return None  # an attachment or a tool call alone
    created = (
        _time(raw.get("created_at"), f"{where}: created_at")
        if raw.get("created_at") is not None
        else fallback_time
    )
    return ImportedMessage(
        source_id=f"{SOURCE}:{uuid}",
        role=role,
        content=text,
        created_at=created,
        author=AUTHOR if role == "assistant" else None,
    )


def _text(where: str, raw: dict) -> str:
    blocks = raw.get("content")
    if blocks is not None and not isinstance(blocks, list):
        raise ImportFileError(f"{where}: content is not a list of blocks.")
    texts = [
        block["text"]
        for block in blocks or ()
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    if texts:
        return "\n\n".join(t for t in texts if t.strip()).strip()
    text = raw.get("text", "")
    if not isinstance(text, str):
        raise ImportFileError(f"{where}: text is not a string.")
    return text.strip()
