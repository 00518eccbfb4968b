"""What the user has one of at a time: a home, a name, an age. A new fact about one of
these replaces the one before ("The user lives in Madrid", then "I moved to Berlin"):
kept beside it, both would come back in prompts as if both were true.

A model weighs a new fact against the similar ones (the reconcile call); these rules do
it where no model does — the built-in model's facts, taken by rules, and a suggestion the
user accepts — and only for these few kinds, whose wording says the kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acai_desktop.core.rules.user_subject import said_of_the_user


@dataclass(frozen=True)
class Slot:
    name: str
    terms: str  # full-text terms of a fact in the slot, space-separated
    fact: re.Pattern[str]


#: Where the user lives: also what bears on a request about somewhere near
#: (core.rules.bearings).
HOME = Slot(
    "home",
    "lives live living moved relocated based",
    said_of_the_user(being=r"based in|living in", doing=r"lives? in|moved to|relocated to"),
)

SLOTS = (
    HOME,
    Slot(
        "name",
        "name called",
        re.compile(
            r"^(?:the user's|my) name is\b|^(?:the user is|i'm|i am) called\b", re.IGNORECASE
        ),
    ),
    Slot("age", "years old", said_of_the_user(being=r"\d{1,3} years old")),
)


def slot_of(fact: str) -> Slot | None:
    """The slot ``fact`` fills, if any."""
    fact = fact.strip()
    return next((slot for slot in SLOTS if slot.fact.search(fact)), None)
