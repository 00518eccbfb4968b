"""How "local only" (issue 42, item 4) reads in the window, in one place: the marker on
memory cards, chat rows, project headers and document rows, its tooltip, the menus'
words, the question before a chat or project is unmarked, and the answer footer's note
of what a turn withheld from a model that runs elsewhere.

What counts as local only is the core's rule (core/store/local_only.py); the window
marks what the user marked, and says so when a memory or document is kept with a
local-only chat or project."""

from __future__ import annotations

#: The marker, as a text badge (no glyph: no font needed).
LOCAL_ONLY_MARK = "Local only"
LOCAL_ONLY_TIP = "Kept on this computer: never sent to a model that runs elsewhere"
MARK_TEXT = "Mark local only"
UNMARK_TEXT = "Unmark local only"
#: Why an item the user did not mark is local only all the same.
BECAUSE_OF_CHAT = "Its chat is local only."
BECAUSE_OF_PROJECT = "Its project is local only."
UNMARK_TITLE = "Unmark local only"
UNMARK_ACTION = "Unmark"


def local_only_tip(why: str | None) -> str:
    """The tooltip's lines for an item local only for ``why`` ("own", "chat" or
    "project"; None: it is not)."""
    if why is None:
        return ""
    because = {"chat": BECAUSE_OF_CHAT, "project": BECAUSE_OF_PROJECT}.get(why)
    return f"{LOCAL_ONLY_MARK}: {LOCAL_ONLY_TIP}." + (f"\n{because}" if because else "")


def unmark_question(kind: str, name: str) -> str:
    """The question before unmarking a chat or a project (``kind``), quoting its name."""
    held = "messages, memories and documents" if kind == "chat" else "chats, memories and documents"
    return (
        f"Unmark the {kind} “{name}” as local only? Its {held} may then reach models "
        "that run elsewhere."
    )


def withheld_note(plan: object) -> str | None:
    """ "1 local-only memory withheld" under an answer whose prompt left local-only
    items out (its plan's ``withheld``), None when it left nothing out."""
    withheld = plan.get("withheld") if isinstance(plan, dict) else None
    if not isinstance(withheld, dict):
        return None
    counts = [
        (len(ids), one, many)
        for key, one, many in (
            ("memory_ids", "memory", "memories"),
            ("message_ids", "message", "messages"),
            ("document_ids", "document", "documents"),
        )
        if isinstance(ids := withheld.get(key), list) and ids
    ]
    if not counts:
        return None
    if len(counts) == 1:
        count, one, many = counts[0]
        return f"{count} local-only {one if count == 1 else many} withheld"
    total = sum(count for count, _, _ in counts)
    return f"{total} local-only items withheld"
