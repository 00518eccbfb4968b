"""The sentences "Why didn't you use …?" says, in plain words: where the ranking put an
item and how its evidence stood against the relevance floor (with core/memory/explain.py's
words: what it shares with the question, how close its meaning is), or what kept it out.
Pure functions over figures the replay found."""

from __future__ import annotations

import math
from dataclasses import dataclass

from acai_desktop.core.memory.explain import MAX_NAMED_WORDS, shared_words
from acai_desktop.core.memory.query import content_terms
from acai_desktop.core.memory.retrieval import floor
from acai_desktop.core.rules.words import tokenize

#: A note written as a fix keeps this much of the item's text.
NOTE_TEXT_CHARS = 300
#: At most this many of the question's words are added to a note.
NOTE_WORDS = 8

#: What each kind of ranked item is called in a sentence ("of the memories").
KIND_PLURAL = {"memory": "memories", "message": "past messages", "passage": "document passages"}
KIND_ONE = {"memory": "a memory", "message": "a past message", "passage": "a passage"}


@dataclass(frozen=True)
class Ranked:
    """Where a ranking put one item: its place among its kind (from 1), its score, and
    the relevance floor's reading: how much of the bar its own evidence reaches, how
    close its meaning stands as a share of its meaning bar (None: too few items to
    weigh it), and the bar it had to reach there."""

    rank: int
    score: float
    relevant: bool
    evidence: float | None = None
    closeness: float | None = None
    bar: float = 1.0

    @classmethod
    def read(
        cls, rank: int, score: float, relevant: bool, item: floor.FloorItem | None, bar: float
    ) -> Ranked:
        """What the floor read of a ranked memory or message (``item``)."""
        if item is None:
            return cls(rank, score, relevant, bar=bar)
        return cls(
            rank,
            score,
            relevant,
            round(floor.evidence(item), 3),
            closeness(item.standing, item.meaning),
            bar,
        )


def closeness(standing: float | None, meaning_bar: float) -> float | None:
    """A cosine's standing as a share of the standing its kind needs (None: it can't
    be weighed, the collection is too small)."""
    if standing is None or not math.isfinite(standing) or meaning_bar <= 0:
        return None
    return max(standing, 0.0) / meaning_bar


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st …"""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def place(ranked: Ranked, kind: str) -> str:
    """ "ranked 3rd of the memories (score 0.52)"."""
    return f"ranked {ordinal(ranked.rank)} of the {KIND_PLURAL[kind]} (score {ranked.score:.2f})"


def evidence_words(question: str, text: str, closeness: float | None) -> str:
    """What the floor weighs, in words: the words it shares with the question, and how
    close its meaning is ("it shares no word with the question, and its meaning is weak")."""
    shared = shared_words(question, text)[:MAX_NAMED_WORDS]
    words = (
        f"it shares “{', '.join(shared)}” with the question"
        if shared
        else "it shares no word with the question"
    )
    if closeness is None:
        return f"{words}, and its meaning can't be weighed yet (too few items to compare)"
    if closeness >= 0.6:
        meaning = "its meaning is close"
    elif closeness >= 0.25:
        meaning = "its meaning is somewhat close"
    else:
        meaning = "its meaning is weak"
    return f"{words}, and {meaning}"


def below_floor(question: str, text: str, ranked: Ranked, kind: str, depth: int) -> str:
    """Why a ranked item stayed under the relevance floor."""
    share = (ranked.evidence or 0.0) / ranked.bar if ranked.bar > 0 else 0.0
    where = ""
    if ranked.bar > 1.0:
        where = (
            f" this far down (past the first {depth} {KIND_PLURAL[kind]}, only strong "
            "evidence passes)"
        )
    return (
        f"It was {place(ranked, kind)}, but below the relevance floor: "
        f"{evidence_words(question, text, ranked.closeness)} — together {share:.0%} of what "
        f"{KIND_ONE[kind]} needs to enter the prompt{where}."
    )


def not_reached(question: str, text: str, kind: str) -> str:
    """Why the search never ranked an item at all."""
    shared = shared_words(question, text)[:MAX_NAMED_WORDS]
    if shared:
        return (
            f"The search did not reach it: it shares only “{', '.join(shared)}” with the "
            "question, and its meaning is far from it, so other "
            f"{KIND_PLURAL[kind]} came first."
        )
    return (
        "The search did not reach it: it shares no word with the question, and its meaning is weak."
    )


def share_full(ranked: Ranked, kind: str, share: float, budget: int) -> str:
    """Why a relevant item was left out by the budget."""
    room = {"memory": "memories", "message": "recalled messages", "passage": "documents"}[kind]
    return (
        f"It passed the relevance floor, {place(ranked, kind)}, but the prompt's room for "
        f"{room} was full: they take at most {share:.0%} of this chat's {budget:,}-token "
        "budget, and better-ranked ones came first."
    )


def past_reach(ranked: Ranked, kind: str, depth: int, budget: int) -> str:
    """Why an item with strong evidence, ranked past the depth the turn read, stayed out."""
    if kind == "passage":
        return (
            f"It has the evidence, but it was {place(ranked, kind)}: a turn reads the "
            f"{depth} best passages."
        )
    return (
        f"It has the evidence, but it was {place(ranked, kind)}: with this chat's "
        f"{budget:,}-token budget a turn reads the best {depth} of each kind."
    )


def keyword_note(question: str, text: str) -> str:
    """A note that holds ``text`` (cut) and the question's words it lacks, so that a
    question in those words finds it next time."""
    held = {floor.stem(token) for token in tokenize(text)}
    missing = [w for w in content_terms(question) if floor.stem(w) not in held][:NOTE_WORDS]
    body = " ".join(text.split())
    if len(body) > NOTE_TEXT_CHARS:
        body = body[: NOTE_TEXT_CHARS - 1].rstrip() + "…"
    return f"{body} (about: {', '.join(missing)})" if missing else body
