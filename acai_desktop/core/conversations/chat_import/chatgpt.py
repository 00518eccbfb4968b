"""ChatGPT's data export: ``conversations.json``.

The file is a list of conversations. Each holds its messages as a tree, ``mapping``
(node id -> ``{id, message, parent, children}``): editing a question or regenerating an
answer starts a branch. ``current_node`` is the leaf the user saw last; the path from it
up to the root is the conversation as it was shown, and that is what is imported (the
other branches are drafts the user moved away from).

A message has ``author.role`` (``user``, ``assistant``, ``system``, ``tool``),
``create_time`` (Unix seconds, or null), ``content`` (``content_type`` and ``parts``;
``text`` for code and tool output) and ``metadata`` (``model_slug``, and
``is_visually_hidden_from_conversation`` for the hidden system turns). Only what the
window showed as the user's words and ChatGPT's answers is kept: text parts of user
and assistant messages addressed to everyone (``recipient`` ``all``); tool calls, tool
output, hidden turns and images are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acai_desktop.core.conversations.chat_import.model import (
    ImportedConversation,
    ImportedMessage,
    ImportFileError,
    iso_from_unix,
    read_json,
    record_name,
)

SOURCE = "chatgpt"
AUTHOR = "ChatGPT"
_TEXT_TYPES = ("text", "multimodal_text")


def read_chatgpt_export(path: str | Path) -> list[ImportedConversation]:
    return parse_chatgpt_export(read_json(path, "ChatGPT export"))


def parse_chatgpt_export(data: Any) -> list[ImportedConversation]:
    if not isinstance(data, list):
        raise ImportFileError(
            "This is not ChatGPT's conversations.json: it should be a list of conversations."
        )
    return [_conversation(position, raw) for position, raw in enumerate(data)]


def _conversation(position: int, raw: Any) -> ImportedConversation:
    if not isinstance(raw, dict):
        raise ImportFileError(f"conversation {position + 1} is not an object.")
    conversation_id = raw.get("conversation_id") or raw.get("id")
    name = record_name(position, raw.get("title"), conversation_id)
    if not isinstance(conversation_id, str) or not conversation_id:
        raise ImportFileError(f"{name} has no id.")
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict):
        raise ImportFileError(f"{name} has no message tree ('mapping').")
    created = _time(raw.get("create_time"), f"{name}: create_time")
    updated = _time(raw.get("update_time"), f"{name}: update_time")
    messages = []
    for node_id, node in _shown_branch(name, mapping, raw.get("current_node")):
        message = _message(name, node_id, node, created)
        if message is not None:
            messages.append(message)
    if created is None:
        created = messages[0].created_at if messages else None
    if created is None:
        raise ImportFileError(f"{name} has no date (create_time).")
    last = messages[-1].created_at if messages else created
    title = raw.get("title") if isinstance(raw.get("title"), str) else ""
    return ImportedConversation(
        source_id=f"{SOURCE}:{conversation_id}",
        title=" ".join(title.split()),
        created_at=created,
        updated_at=max(updated or created, last),
        messages=tuple(messages),
    )


def _time(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ImportFileError(f"{where} is not a time (Unix seconds): {value!r}")
    try:
        return iso_from_unix(value)
    except (OverflowError, OSError, ValueError):
        raise ImportFileError(f"{where} is out of range: {value!r}") from None


def _shown_branch(name: str, mapping: dict, current: Any) -> list[tuple[str, dict]]:
    """The nodes from the root down to ``current_node`` (the branch shown last)."""
    if not mapping:
        return []
    if current is None:
        current = _last_leaf(mapping)
    if not isinstance(current, str) or current not in mapping:
        raise ImportFileError(f"{name}: current_node {current!r} is not in its message tree.")
    path, seen, node_id = [], set(), current
    while node_id is not None:
        if node_id in seen:
            raise ImportFileError(f"{name}: its message tree has a loop at node {node_id!r}.")
        seen.add(node_id)
        node = mapping.get(node_id)
        if not isinstance(node, dict):
            raise ImportFileError(
                f"{name}: node {node_id!r} is named as a parent but is not in its message tree."
            )
        path.append((node_id, node))
        node_id = node.get("parent")
    path.reverse()
    return path


def _last_leaf(mapping: dict) -> str | None:
    """Without ``current_node`` (older exports): the leaf written last."""
    leaves = [
        (((node.get("message") or {}).get("create_time") or 0), node_id)
        for node_id, node in mapping.items()
        if isinstance(node, dict) and not node.get("children")
    ]
    return max(leaves)[1] if leaves else None


def _message(name: str, node_id: str, node: dict, fallback_time: str | None):
    raw = node.get("message")
    if raw is None:
        return None  # the root, or a node whose message was removed
    where = f"{name}: message {node_id!r}"
    if not isinstance(raw, dict):
        raise ImportFileError(f"{where} is not an object.")
    author = raw.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if not isinstance(role, str):
        raise ImportFileError(f"{where} has no author role.")
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    if role not in ("user", "assistant") or metadata.get("is_visually_hidden_from_conversation"):
        return None
    if raw.get("recipient", "all") != "all":
        return None  # a call to a tool (browsing, code), not words to the user
    content = raw.get("content")
    if not isinstance(content, dict):
        raise ImportFileError(f"{where} has no content.")
    if content.get("content_type") not in _TEXT_TYPES:
        return None  # code run, tool output, reasoning: not the conversation's words
    parts = content.get("parts")
    if not isinstance(parts, list):
        raise ImportFileError(f"{where}: content.parts is not a list.")
    text = "\n\n".join(part for part in parts if isinstance(part, str) and part.strip()).strip()
    if not text:
        return None  # an image alone, or an empty placeholder
    created = _time(raw.get("create_time"), f"{where}: create_time") or fallback_time
    if created is None:
        raise ImportFileError(f"{where} has no date (create_time).")
    message_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else node_id
    model = metadata.get("model_slug") if isinstance(metadata.get("model_slug"), str) else None
    return ImportedMessage(
        source_id=f"{SOURCE}:{message_id}",
        role=role,
        content=text,
        created_at=created,
        author=AUTHOR if role == "assistant" else None,
        model=model if role == "assistant" else None,
    )
