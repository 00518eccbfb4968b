"""Facts said of the user themselves, recognised by their wording: a learned fact's
subject is "The user" (:func:`name_the_subject` names it so, turning the user's own
first person with :func:`about_the_user`), a note's "I"."""

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


_SUBJECT_VERB = (
    (re.compile(r"^(?:i am|i'm|im)\b", re.IGNORECASE), "The user is"),
    (re.compile(r"^i was\b", re.IGNORECASE), "The user was"),
    (re.compile(r"^(?:i have|i've|ive)\b", re.IGNORECASE), "The user has"),
    (re.compile(r"^i had\b", re.IGNORECASE), "The user had"),
    (re.compile(r"^(?:i don't|i dont|i do not)\b", re.IGNORECASE), "The user does not"),
    (re.compile(r"^(?:i didn't|i did not)\b", re.IGNORECASE), "The user did not"),
    (re.compile(r"^(?:i can't|i cant|i cannot|i can not)\b", re.IGNORECASE), "The user can't"),
    (re.compile(r"^i can\b", re.IGNORECASE), "The user can"),
    (re.compile(r"^my name's\b", re.IGNORECASE), "The user's name is"),
    (re.compile(r"^my\b", re.IGNORECASE), "The user's"),
)
# Adverbs between "I" and the verb stay as they are ("I now live" -> "The user now
# lives", not "nows live"): a few common ones, and any word of five letters or more
# ending in "ly" but not "ply" ("currently"; "apply", "reply" are verbs).
_I_VERB = re.compile(
    r"^i\s+((?:(?:always|never|often|also|still|just|only|even|sometimes|now|already|"
    r"almost|seldom|once|no\s+longer|(?![a-z]*ply\b)[a-z]{3,}ly)\s+)*)"
    r"([a-z]+(?:'[a-z]+)?)(?![\w'])(.*)$",
    re.IGNORECASE | re.DOTALL,
)
# Past forms stay as they are ("I grew up in Leeds" -> "The user grew up in Leeds").
# fmt: off
_IRREGULAR_PAST = frozenset({
    "grew", "got", "went", "was", "were", "had", "did", "made", "took", "gave", "met",
    "saw", "began", "became", "left", "found", "bought", "brought", "taught", "thought",
    "felt", "kept", "lost", "won", "wrote", "ran", "came", "knew", "told", "said", "spent",
    "built", "sold", "fell", "broke", "chose", "drove", "ate", "drank", "swam", "sang",
    "sent", "paid", "heard", "held", "led", "lent", "meant", "rode", "rose", "shot",
    "slept", "spoke", "stood", "stole", "struck", "swore", "threw", "understood", "woke",
    "wore", "quit"
})
# fmt: on
_IRREGULAR_PRESENT = {
    "have": "has",
    "do": "does",
    "go": "goes",
    "am": "is",
    "don't": "doesn't",
    "dont": "doesn't",
    "haven't": "hasn't",
}
# Modal and negated forms that are the same for every subject.
_SAME_FOR_EVERYONE = frozenset(
    {"can", "can't", "cannot", "will", "won't", "must", "didn't", "couldn't", "wasn't"}
)
# What the rest of the sentence says of the user, in the third person.
_REST_PRONOUNS = (
    (re.compile(r"\b(?:i'm|im)\b", re.IGNORECASE), "they're"),
    (re.compile(r"\bi am\b", re.IGNORECASE), "they are"),
    (re.compile(r"\bi was\b", re.IGNORECASE), "they were"),
    (re.compile(r"\b(?:i've|ive)\b", re.IGNORECASE), "they've"),
    (re.compile(r"\bi\b", re.IGNORECASE), "they"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themselves"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "theirs"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "their"),
    (re.compile(r"\bme\b", re.IGNORECASE), "them"),
)


def about_the_user(sentence: str) -> str | None:
    """A first-person sentence about "The user" ("I'm a nurse and I love my job" ->
    "The user is a nurse and they love their job"); None when it doesn't start with
    "I" or "My"."""
    for pattern, subject in _SUBJECT_VERB:
        if pattern.match(sentence):
            head, rest = subject, pattern.sub("", sentence, count=1)
            return head + _rest_about_the_user(rest)
    matched = _I_VERB.match(sentence)
    if matched is None:
        return None
    adverbs, verb, rest = matched.groups()
    return f"The user {adverbs}{_third_person_verb(verb)}" + _rest_about_the_user(rest)


def _third_person_verb(verb: str) -> str:
    lower = verb.lower()
    if lower.endswith("ed") or lower in _IRREGULAR_PAST or lower in _SAME_FOR_EVERYONE:
        return verb
    if lower in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[lower]
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def _rest_about_the_user(rest: str) -> str:
    for pattern, replacement in _REST_PRONOUNS:
        rest = pattern.sub(replacement, rest)
    return rest


def name_the_subject(fact: str) -> str:
    """A fact must say whose it is: "has a PhD" becomes "The user has a PhD", and the
    user's own first person ("I'm a nurse", "My dog ...") becomes "The user ..."."""
    fact = " ".join(fact.split()).strip()
    turned = about_the_user(fact)
    if turned is not None:
        return turned
    if fact and fact[0].islower():
        return f"The user {fact}"
    return fact
