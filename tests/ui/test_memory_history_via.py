"""A memory written by an MCP client says so in its history, as plain text."""

from __future__ import annotations

from acai_desktop.core.records.memories import Actor, MemoryEvent, MemoryItem, MemoryKind, Origin
from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog

AT = "2026-12-01T10:00:00+00:00"


def _event(event_id: int, after: dict) -> MemoryEvent:
    return MemoryEvent(event_id, 1, AT, Actor.USER, "created", None, after)


def test_the_history_names_the_client_that_wrote_it(qtbot):
    dialog = MemoryDetailsDialog(1)
    qtbot.addWidget(dialog)
    item = MemoryItem(1, MemoryKind.FACT, "The user is vegetarian", Origin.USER, AT, AT)
    dialog.set_details(
        item,
        [
            _event(1, {"content": item.content, "via": "<b>Claude Desktop</b> via MCP"}),
            _event(2, {"content": item.content}),
        ],
        [],
        0,
    )
    text = dialog.browser.toPlainText()
    assert "Created by <b>Claude Desktop</b> via MCP" in text  # literally, not as markup
    assert "Created by You" in text  # an event without a client stays the user's
