"""The Sources dialog's card of what an answer's prompt left out because it is local
only and the answering model runs elsewhere (issue 42, item 4): the reason the turn
kept, and each withheld memory, message and document as it reads on this computer."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from acai_desktop.ui.local_only_text import LOCAL_ONLY_TIP

WITHHELD_HEAD = "WITHHELD: LOCAL ONLY"
#: A withheld message's snippet, in characters.
SNIPPET_CHARS = 160
GONE = "(no longer exists)"


@dataclass(frozen=True)
class WithheldItem:
    text: str
    #: The memory it is (its text then links to it in the memory panel); None otherwise.
    memory_id: int | None = None


@dataclass(frozen=True)
class Withheld:
    """What an answer's plan says was withheld, looked up on this computer (an item
    gone since reads :data:`GONE`)."""

    reason: str
    memories: list[WithheldItem] = field(default_factory=list)
    messages: list[WithheldItem] = field(default_factory=list)
    documents: list[WithheldItem] = field(default_factory=list)


def snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def withheld_card(withheld: Withheld, memory_link, show_in_panel_tip: str) -> str:
    """The card: the reason, then each item by kind (texts are the user's: escaped);
    ``memory_link(id)`` is the address that shows a memory in the panel."""
    e = html.escape
    lines = [f"<b>{e(withheld.reason)}</b>"]
    for label, items in (
        ("Memory", withheld.memories),
        ("Message", withheld.messages),
        ("Document", withheld.documents),
    ):
        for item in items:
            text = f"“{e(item.text)}”" if label != "Document" else e(item.text)
            if item.memory_id is not None:
                text = (
                    f"<a href='{memory_link(item.memory_id)}' title='{show_in_panel_tip}'>"
                    f"{text}</a>"
                )
            lines.append(f"{label}: {text}")
    lines.append(
        f"<span class='muted'>{e(LOCAL_ONLY_TIP)}. The answer was written without them.</span>"
    )
    return f"<p class='card'>{'<br>'.join(lines)}</p>"
