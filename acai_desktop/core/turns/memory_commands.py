"""The memory commands the app answers itself with the built-in model (issue 40).

Asked "What do you remember about me?", the bundled 135M model gave a non-answer, then
gave the user their daughter's hobby; told "Remember that …" it may say anything. What
these commands need is no model: the answer to a question about the user is the list of
their facts and notes (pinned first, then the most important, as
:meth:`~acai_desktop.core.memory.retrieval.HybridRetriever.known_facts` reads them),
and the answer to "Remember that …" / "Forget that …" says what the learning job will
do with the request (it runs after the answer: core.learning.fact_learner). The
orchestrator saves and announces these answers like any other, with :data:`APP_MODEL`
as the model that wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from acai_desktop.core.learning.plain_statements import MemoryRequest
from acai_desktop.core.records.memories import MemoryItem

#: The model an answer the app wrote from memory is recorded with.
APP_MODEL = "ACAI (from memory)"
#: The most memories one answer lists; the rest are in the memory panel.
MOST_LISTED = 10
NOTHING_KNOWN = "I don't remember anything about you yet."
IN_A_TEMPORARY_CHAT = (
    "This is a temporary chat, so nothing in it is remembered or forgotten. "
    "Ask me in a regular chat, or use the memory panel."
)

# First person in the user's words, as the app says it back ("my passport" -> "your
# passport"); the longer forms first.
_TO_SECOND_PERSON = (
    (re.compile(r"\b(?:i'm|im|i am)\b", re.IGNORECASE), "you're"),
    (re.compile(r"\bi was\b", re.IGNORECASE), "you were"),
    (re.compile(r"\b(?:i've|ive)\b", re.IGNORECASE), "you've"),
    (re.compile(r"\bi'd\b", re.IGNORECASE), "you'd"),
    (re.compile(r"\bi'll\b", re.IGNORECASE), "you'll"),
    (re.compile(r"\bi\b", re.IGNORECASE), "you"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "yourself"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "yours"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "your"),
    (re.compile(r"\bme\b", re.IGNORECASE), "you"),
)
# What to forget said as a clause ("I live in Lisbon"), not as a thing ("my address").
_CLAUSE = re.compile(r"^(?:i|i'm|im|i've|ive|i am|i was|the user)\b", re.IGNORECASE)


def said_back(words: str) -> str:
    """The user's words with "I" and "my" turned to "you" and "your"."""
    for pattern, replacement in _TO_SECOND_PERSON:
        words = pattern.sub(replacement, words)
    return words


def known_answer(listed: Sequence[MemoryItem], total: int) -> str:
    """The answer to "What do you know about me?": ``listed`` (at most
    :data:`MOST_LISTED` of the ``total`` known facts and notes) as bullets, in order."""
    if not listed:
        return NOTHING_KNOWN
    lines = [
        "Here is what I remember about you:",
        "",
        *(f"- {' '.join(memory.content.split())}" for memory in listed),
    ]
    if total > len(listed):
        lines += ["", f"…and {total - len(listed)} more in the memory panel."]
    return "\n".join(lines)


def requests_answer(requests: Sequence[MemoryRequest], *, temporary: bool = False) -> str:
    """The answer to a message that asks only to remember or forget (see
    :func:`~acai_desktop.core.learning.plain_statements.memory_requests`)."""
    if temporary:
        return IN_A_TEMPORARY_CHAT
    return " ".join(_reply(request) for request in requests)


def _reply(request: MemoryRequest) -> str:
    what = said_back(request.what).rstrip(" .!")
    if not request.forget:
        return f"I'll remember that {what}."
    if _CLAUSE.match(request.what):
        return f"I'll forget that {what}."
    return f"I'll forget {what}."
