"""The UI and the command line (the MCP server among its commands) reach the core
through services only: never the store or a repository. (That neither imports the store
is an import-linter contract, tests/test_architecture.py; this test covers what an
import can't show: a repository reached through the assistant.)

``Assistant`` keeps its storage in ``_``-prefixed fields (the core's own); the UI may use
none of them, nor ``store``/``jobs``/``provenance``/``data`` under any name, and what it
calls on ``.conversations`` must be the conversation service's public API (a repository
method there means it reached past the service)."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import acai_desktop.commands
import acai_desktop.ui
from acai_desktop.core.assistant import Assistant
from acai_desktop.core.conversations.service import ConversationService

UI = Path(acai_desktop.ui.__file__).parent
COMMANDS = Path(acai_desktop.commands.__file__).parent
STORAGE_NAMES = {"store", "jobs", "provenance", "data"}
SERVICE_API = {name for name in dir(ConversationService) if not name.startswith("_")}


def _sources() -> list[tuple[Path, ast.AST]]:
    """The window's modules and the commands'."""
    paths = sorted(UI.rglob("*.py")) + sorted(COMMANDS.rglob("*.py"))
    return [(path, ast.parse(path.read_text(), str(path))) for path in paths]


def _ends_with_assistant(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "assistant") or (
        isinstance(node, ast.Attribute) and node.attr == "assistant"
    )


def _holds_services(node: ast.AST) -> bool:
    """The assistant, or the profile's data opened before it (``data``, ``profile_data``)."""
    names = {"assistant", "data", "profile_data"}
    return (isinstance(node, ast.Name) and node.id in names) or (
        isinstance(node, ast.Attribute) and node.attr in names
    )


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(UI.parent)}:{node.lineno}"


def test_the_ui_and_the_commands_use_no_storage_attribute_of_the_assistant():
    reached = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _ends_with_assistant(node.value):
                continue
            if node.attr.startswith("_") or node.attr in STORAGE_NAMES:
                reached.append(f"{_where(path, node)} assistant.{node.attr}")
    assert reached == []


def test_the_ui_and_the_commands_call_only_the_conversation_service_on_conversations():
    reached = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "conversations"
                and _holds_services(node.value.value)
                and node.attr not in SERVICE_API
            ):
                reached.append(f"{_where(path, node)} .conversations.{node.attr}")
    assert reached == []


def test_the_assistant_exposes_services_only():
    """Every public field of Assistant is a service (or a plain value), none the storage."""
    hints = typing.get_type_hints(Assistant)
    storage = [
        field.name
        for field in dataclasses.fields(Assistant)
        if not field.name.startswith("_")
        and any(word in str(hints[field.name]) for word in ("Repository", "Store", "ProfileData"))
    ]
    assert storage == []
    assert "conversation_service" not in {field.name for field in dataclasses.fields(Assistant)}
    assert hints["conversations"] is ConversationService
