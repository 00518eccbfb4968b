"""A long message of the user's (a paste): how much of it the chat shows folded, and what
the prompt budget means for it.

A 50,000-character paste would otherwise be one bubble many screens tall. Folded, the
bubble shows its first lines with *Show more*; unfolded, up to the chat's usual limit
(:data:`~acai_desktop.ui.message_document.SHOWN_ANSWER_CHARS`), the rest in a viewer.

A paste over the whole budget does not become a message at all: the composer attaches
it to the chat as a text document (:func:`pastes_as_attachment`), so the answer quotes
the passages that matter instead of a message that crowds out everything else.

What reaches the model: the context builder (``core.memory.context_builder``) always
sends the new message whole, even over the prompt budget (``context_budget_tokens`` in
the model settings), and fits the memories, document passages and earlier messages
into what the budget has left. So a message over the budget goes alone; one that takes
most of it leaves little room. The notes below say so, with the token estimate every
budget in the program uses.
"""

from __future__ import annotations

from acai_desktop.core.memory.tokens import estimate_tokens

#: A user's message longer than this (characters or lines) shows folded.
FOLDED_CHARS = 1_500
FOLDED_LINES = 20
#: Past this share of the budget, the message leaves little room for the rest.
MOST_OF_THE_BUDGET = 0.5


def is_long(text: str) -> bool:
    return len(text) > FOLDED_CHARS or text.count("\n") >= FOLDED_LINES


def folded_part(text: str) -> str:
    """The first lines of ``text`` (at most FOLDED_LINES and about FOLDED_CHARS), cut
    after a line or a word."""
    part = "\n".join(text.split("\n", FOLDED_LINES)[:FOLDED_LINES])
    if len(part) <= FOLDED_CHARS:
        return part
    cut = max(part.rfind("\n", 0, FOLDED_CHARS), part.rfind(" ", 0, FOLDED_CHARS))
    return part[: cut if cut > FOLDED_CHARS // 2 else FOLDED_CHARS]


def pastes_as_attachment(text: str, budget_tokens: int | None) -> bool:
    """Whether pasting ``text`` attaches it instead of putting it in the message: it
    alone would take more than the whole prompt budget."""
    if not budget_tokens or len(text) <= budget_tokens:
        return False  # an estimate never passes the characters: no need to count
    return estimate_tokens(text) > budget_tokens


def pasted_note(text: str, name: str) -> str:
    """What the composer says when a paste became an attachment."""
    return (
        f"Your paste (about {estimate_tokens(text):,} tokens, more than the context budget) "
        f"is attached to this chat as “{name}”: answers quote the passages they need."
    )


def budget_note(text: str, budget_tokens: int | None) -> str | None:
    """What the prompt budget means for ``text`` as the next message: None when it
    leaves the usual room for memories and earlier messages."""
    if not budget_tokens or len(text) <= budget_tokens * MOST_OF_THE_BUDGET:
        return None  # an estimate never passes the characters: no need to count
    tokens = estimate_tokens(text)
    if tokens > budget_tokens:
        return (
            f"About {tokens:,} tokens, over the {budget_tokens:,}-token context budget: all "
            "of it goes to the model, but alone, with no memories, documents or earlier "
            "messages beside it."
        )
    if tokens > budget_tokens * MOST_OF_THE_BUDGET:
        return (
            f"About {tokens:,} of the {budget_tokens:,} tokens of the context budget: little "
            "room is left for memories, documents and earlier messages."
        )
    return None
