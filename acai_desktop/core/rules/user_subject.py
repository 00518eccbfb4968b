"""Facts said of the user themselves, recognised by their wording: a learned fact's
subject is "The user" (processors name it so), a note's "I"."""

from __future__ import annotations

import re


def said_of_the_user(*, being: str = "", doing: str = "") -> re.Pattern[str]:
    """A fact whose subject is the user and whose predicate, within a few words of it, is
    ``being`` after "is" / "am" / "'m" ("The user is strictly vegetarian", "I'm allergic
    to peanuts") or ``doing`` ("The user never eats pork") — not "The user is looking for
    vegan recipes", "The user tried a vegan yogurt" nor "The user has a friend who is
    vegan"; "The user's sister is vegan" and "My sister lives in Lisbon" are about
    someone else."""
    ways = []
    if being:
        ways.append(
            r"(?:'m|’m|\s+(?:is|am|was|has been|have been|became|went|turned))\s+"
            rf"(?:\w+\s+){{0,3}}?(?:an?\s+)?(?:{being})"
        )
    if doing:
        ways.append(rf"\s+(?:\w+\s+){{0,3}}?(?:{doing})")
    return re.compile(rf"^(?:the user|i)(?:{'|'.join(ways)})\b", re.IGNORECASE)
