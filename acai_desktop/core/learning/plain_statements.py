"""Lasting facts the user states plainly, picked without a model.

The bundled 135M model can't pick facts: on the first session of each LoCoMo dev
sample (``eval extraction --provider local --limit 1``) the grounding check refused 135
of its facts (106 copies of the prompt's example), and of the 7 it stored 2 matched a
real one, for 208 calls (docs/benchmarks.md, "Memory metrics with the built-in model").
So with that model the critical-info processor takes the user's own first-person
statements that the memory policy's lasting cues mark as durable ("I'm vegetarian", "My
sister lives in Ohio", "I work as a nurse") or that say who the user is in capitalised
words ("I'm Marta", "I'm Greek"), and writes each about the user in the third person.
What the user asks to remember ("Remember that my passport expires in May") is taken
whatever it sounds like (:func:`requested_facts`), with any model; what they ask to
forget ("Forget that I have a dog") is named by :func:`forget_requests`. Nothing is
invented: every fact is the user's sentence with its pronouns turned.

Left out, because they say nothing lasting or not as a fact: questions, what the user
is unsure of, wishes or would do ("I think", "maybe", "I'd love to"), sentences about
the other side of the chat ("you", "your"), passing states (today, a mood, the weather:
core.rules.durability), and sentences whose subject is "we" (who else is meant is not
known; "our" and "us" in a statement about the user's family are kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acai_desktop.core.rules.durability import Durability, durability_of, lasting_topic
from acai_desktop.core.rules.user_subject import about_the_user

#: How sure a plain statement is: the user said it in so many words.
STATEMENT_CONFIDENCE = 0.8
#: A fact is one short sentence (the grounding check's own limit is 300 characters).
MAX_STATEMENT_CHARS = 240
MIN_STATEMENT_WORDS = 2  # "I'm vegan"

# Sentence ends, and the semicolons and dashes that join two statements.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s+[-–—]\s+|\n+")
# A full stop that ends an initial or a title, not a sentence.
_NOT_AN_END = re.compile(r"(?:\b[A-Z]|\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Jr|Sr|Mt|vs|etc|e\.g|i\.e))\.$")
# A comma before a new first-person clause ("Bee stings are dangerous for me, I carry
# an EpiPen"); the clause is only read when its sentence as a whole is not passing.
_CLAUSE_START = re.compile(r",\s+(?=(?:i|my)\b)", re.IGNORECASE)
# Words that open a sentence without being part of what it states.
_OPENERS = re.compile(
    r"^(?:(?:so|well|oh|also|and|but|btw|by the way|fyi|just so you know|for the record|"
    r"honestly|actually|yeah|yes|yep|no|nope|hey|hi|hello|lol|haha|ok|okay|anyway|anyways|"
    r"fun fact|oh and|oh also)\b[,:!]?\s*)+",
    re.IGNORECASE,
)
_UNSURE_OR_UNREAL = re.compile(
    r"\b(?:if|unless|maybe|perhaps|probably|may|might|would|could|should|wish|hope|guess|"
    r"suppose|wonder|imagine|pretend|think|thinking|considering|i'd|i'll|wanna|want to|"
    r"gonna|going to|plan to|planning|let's|let me|not sure|don't know|dunno)\b",
    re.IGNORECASE,
)
_ABOUT_THE_OTHER_SIDE = re.compile(r"\b(?:you|your|yours|you're|you've|u|ur)\b", re.IGNORECASE)
# Demonstratives as the whole object: "I love that!", "I hate it" say nothing on their own.
_BARE_REACTION = re.compile(
    r"^i (?:\w+ )?(?:love|like|hate|enjoy|prefer|adore|miss)s? (?:that|this|it|these|those|them)\b",
    re.IGNORECASE,
)

# "I'm Marta", "I'm Greek", "I am Catholic": who the user is, in a capitalised word or
# two (a name, a nationality, a faith). Only the words' capitals tell it from "I'm fine",
# so the name part is case-sensitive; all-capital words ("I'm OK") are not it.
_WHO_I_AM = re.compile(r"^(?i:i'm|i am|im)\s+([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)$")
# Words that close a sentence without being part of what it states ("I'm Marta, by
# the way!").
_CLOSERS = re.compile(r"(?:[,\s]+(?:by the way|btw|fyi|lol|haha))*[\s.!…]*$", re.IGNORECASE)
# ... but not a capitalised state ("I'm Back!").
_NOT_WHO = frozenset({"back", "done", "fine", "good", "here", "home", "in", "okay", "out",
                      "ready", "sorry", "sure", "there"})  # fmt: skip

_CALLED = "The user wants to be called"
# "Call me Tommy": the name the user wants (a capitalised word: not "call me back").
_CALL_ME = re.compile(
    r"^(?i:(?:please|just|you can|you may)\s+)*(?i:call me)\s+"
    r"(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.? )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)$"
)


# An explicit request to remember what follows: "Remember that my passport expires in
# May", "Please note: the garage code is 4512", "Don't forget I'm allergic to shellfish".
# Not "remember to buy milk" (a reminder), "remember when we..." (a question about the
# past), nor "note the difference" (what follows a bare verb counts only when it is
# about the user: "Remember I'm allergic...").
_TO_REMEMBER = (
    r"^(?:(?:please|pls|can you|could you|would you)\s+)*"
    r"(?:remember|don't forget|dont forget|do not forget|keep in mind|note|make a note|"
    r"memori[sz]e)"
)
_REQUEST_TO_REMEMBER = re.compile(
    _TO_REMEMBER + r"(?:\s+(?:of\s+)?(?:this|that)\s*[:,\-–—]?|\s*[:,\-–—])\s+(?P<what>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
_REQUEST_ABOUT_ME = re.compile(
    _TO_REMEMBER + r"\s+(?P<what>(?:i|i'm|im|i've|i am|my)\b.*)$", re.IGNORECASE | re.DOTALL
)
# The user in a sentence whose subject is not them ("the spare key is under my mat").
_THE_USER_IN_THE_REST = (
    (re.compile(r"\b(?:i'm|im|i am)\b", re.IGNORECASE), "the user is"),
    (re.compile(r"\b(?:i've|ive)\b", re.IGNORECASE), "the user has"),
    (re.compile(r"\bi\b", re.IGNORECASE), "the user"),
    (re.compile(r"\b(?:my|mine)\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\b(?:me|myself)\b", re.IGNORECASE), "the user"),
)


# An explicit request to forget: "Forget that I have a dog", "Please forget my address",
# "Forget what I said about my ex", "Remove my old phone number from your memory". Not
# "forget it" nor "never mind": what follows must name something of the user's.
_REQUEST_TO_FORGET = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you)\s+)*"
    r"(?:forget|stop remembering|delete|remove|erase)\s+"
    r"(?:(?:that|about|what i (?:said|told you) about|the memory (?:that|about))\s+)?"
    r"(?P<what>(?:i|i'm|im|i've|my|the user)\b.*?)"
    r"(?:\s+from (?:your|the|my) memor(?:y|ies))?$",
    re.IGNORECASE | re.DOTALL,
)
# delete/remove/erase act on memory only when the request says so ("delete my old
# files" is a task, not a request about memory).
_NEEDS_MEMORY_WORD = re.compile(r"^(?:\S+\s+)*?(?:delete|remove|erase)\b", re.IGNORECASE)


def forget_requests(text: str) -> list[str]:
    """What each sentence of ``text`` that asks to forget something names, as said
    ("Forget that I have a dog" -> "I have a dog")."""
    found: list[str] = []
    for sentence in _sentences(text):
        what = _to_forget(sentence)
        if what and what.lower() not in (f.lower() for f in found):
            found.append(what)
    return found


def _to_forget(sentence: str) -> str | None:
    """What ``sentence`` asks to forget, as said (None: it asks no such thing)."""
    sentence = _OPENERS.sub("", " ".join(sentence.split())).strip(" ,;:-–—")
    sentence = _CLOSERS.sub("", sentence.rstrip("?"))
    matched = _REQUEST_TO_FORGET.match(sentence)
    if matched is None:
        return None
    if _NEEDS_MEMORY_WORD.match(sentence) and not re.search(
        r"\bmemor(?:y|ies)\b", sentence, re.IGNORECASE
    ):
        return None
    # "my sister's wedding, it was cancelled": what to forget is before the comma.
    return matched.group("what").split(", ")[0].strip(" ,;:-–—") or None


def requested_facts(text: str) -> list[tuple[str, str]]:
    """``(fact, category)`` for each sentence of ``text`` that asks to remember
    something ("Remember that my passport expires in May" -> "The user's passport
    expires in May."): kept whether or not it sounds lasting — the user asked."""
    facts: list[tuple[str, str]] = []
    for sentence in _sentences(text):
        asked = _to_remember(sentence)
        if asked is None:
            continue
        what, fact = asked
        if fact.lower() + "." in {f.lower() for f, _ in facts}:
            continue
        facts.append((fact + ".", lasting_topic(what) or "Other"))
    return facts


def _to_remember(sentence: str) -> tuple[str, str] | None:
    """What ``sentence`` asks to remember, as said, and as the fact about the user
    (without its full stop); None when it asks no such thing or nothing would be kept."""
    sentence = _OPENERS.sub("", " ".join(sentence.split())).strip(" ,;:-–—")
    matched = _REQUEST_TO_REMEMBER.match(sentence) or _REQUEST_ABOUT_ME.match(sentence)
    if matched is None:
        return None
    what = _CLOSERS.sub("", matched.group("what").rstrip("?")).strip(" ,;:-–—")
    if len(what.split()) < MIN_STATEMENT_WORDS or _ABOUT_THE_OTHER_SIDE.search(what):
        return None
    if re.match(r"(?:to|when|how|what|where|who|why|if|whether)\b", what, re.IGNORECASE):
        return None  # "remember: to call mum" is a reminder; "remember when..." a question
    said = what
    fact = about_the_user(what)
    if fact is None:
        for pattern, replacement in _THE_USER_IN_THE_REST:
            what = pattern.sub(replacement, what)
        fact = what[0].upper() + what[1:]
    if len(fact) > MAX_STATEMENT_CHARS:
        return None
    return said, fact


@dataclass(frozen=True)
class MemoryRequest:
    """One sentence's request to remember or to forget something, in the user's words
    ("Remember that my passport expires in May" -> remember "my passport expires in May")."""

    forget: bool
    what: str


# A sentence that asks nothing beside a request ("Thanks!", "Please.").
_COURTESY = re.compile(
    r"^(?:please|pls|thanks?|thank you|thx|ty|ok|okay|cheers|cool|great)?[\s.!]*$", re.IGNORECASE
)


def memory_requests(text: str) -> list[MemoryRequest]:
    """The requests to remember or forget of a message that asks nothing else ("Remember
    that I'm vegetarian.", "Forget that I live in Lisbon. Thanks!"); [] when it asks no
    such thing or asks something else too ("Remember I'm vegan. What should I cook?").
    Each request is one the learning job acts on (:func:`requested_facts`,
    :func:`forget_requests`)."""
    found: list[MemoryRequest] = []
    for sentence in _sentences(text):
        if _COURTESY.match(sentence.strip()):
            continue
        if (forgotten := _to_forget(sentence)) is not None:
            found.append(MemoryRequest(True, forgotten))
        elif (asked := _to_remember(sentence)) is not None:
            found.append(MemoryRequest(False, asked[0]))
        else:
            return []
    return found


def lasting_statements(text: str) -> list[tuple[str, str]]:
    """``(fact, category)`` for each lasting first-person statement in ``text``, the
    fact about "The user", in the order said, each once."""
    facts: list[tuple[str, str]] = []
    seen: set[str] = set()
    for sentence in _sentences(text):
        if durability_of(sentence) is Durability.PASSING:
            continue  # "I'm so annoyed right now, my neighbour's dog won't stop barking"
        for clause in _CLAUSE_START.split(sentence):
            fact = _as_fact(clause)
            if fact is None or fact.lower() in seen:
                continue
            seen.add(fact.lower())
            topic = lasting_topic(clause) or (
                "Personal" if _says_who(clause) or fact.startswith(_CALLED) else "Other"
            )
            facts.append((fact, topic))
    return facts


def _sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends, not after an initial or a title ("Ursula K. Le
    Guin", "Dr. Patel")."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if sentences and _NOT_AN_END.search(sentences[-1]):
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return sentences


def _as_fact(sentence: str) -> str | None:
    sentence = _OPENERS.sub("", " ".join(sentence.split())).strip(" ,;:-–—")
    if called := _CALL_ME.match(_CLOSERS.sub("", sentence)):
        return f"{_CALLED} {called.group('name')}."
    if sentence.endswith("?") or len(sentence.split()) < MIN_STATEMENT_WORDS:
        return None
    if not re.match(r"(?:i|i'm|im|i've|ive|my)\b", sentence, re.IGNORECASE):
        return None
    if (
        _UNSURE_OR_UNREAL.search(sentence)
        or _ABOUT_THE_OTHER_SIDE.search(sentence)
        or _BARE_REACTION.match(sentence)
        or (durability_of(sentence) is not Durability.LASTING and not _says_who(sentence))
    ):
        return None
    fact = about_the_user(_CLOSERS.sub("", sentence))
    if fact is None or len(fact) > MAX_STATEMENT_CHARS:
        return None
    return fact + "."


def _says_who(sentence: str) -> bool:
    """ "I'm Marta", "I'm Greek": who the user is (see _WHO_I_AM)."""
    sentence = _OPENERS.sub("", " ".join(sentence.split())).strip(" ,;:-–—")
    matched = _WHO_I_AM.match(_CLOSERS.sub("", sentence))
    return matched is not None and matched.group(1).lower() not in _NOT_WHO
