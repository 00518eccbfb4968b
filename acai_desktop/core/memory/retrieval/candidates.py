"""The data a ranking passes between its steps: candidates of each side, scored
candidates of each tier, and what the query says besides its words."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from acai_desktop.core.memory.relative_time import EventAnchor
from acai_desktop.core.memory.vector_index import Cosines
from acai_desktop.core.store import search as sql

# Below this many items a collection's cosine spread is no calibration (see
# SemanticCandidates.floor_standing).
MIN_ITEMS_FOR_SPREAD = 50


@dataclass
class SemanticCandidates:
    ids: np.ndarray
    scores: np.ndarray
    floor: float  # the cosine of the last semantic candidate (normalisation's zero)
    # The query's cosine with every item of the index: its mean and standard deviation.
    # A cosine means little alone (0.4 is high for one embedder and one collection,
    # low for another); how far it stands above the whole collection's is calibrated.
    mean: float = 0.0
    spread: float = 1.0
    items: int = 0  # how many the mean and spread were taken over
    # The query's cosine with every item of the index (the product the candidates came
    # from): the ranking reads the other candidates' cosines out of it.
    every: Cosines | None = None

    def standing(self, cosine: np.ndarray) -> np.ndarray:
        """How many standard deviations ``cosine`` stands above the collection's mean."""
        return ((cosine - self.mean) / self.spread).astype(np.float32)

    def floor_standing(self, cosine: np.ndarray) -> np.ndarray:
        """:meth:`standing` for the relevance floor: -inf for every item of a
        collection too small for its spread to mean anything."""
        if self.items < MIN_ITEMS_FOR_SPREAD:
            return np.full(len(cosine), -np.inf, np.float32)
        return self.standing(cosine)


def no_semantic_candidates() -> SemanticCandidates:
    return SemanticCandidates(np.zeros(0, np.int64), np.zeros(0, np.float32), 0.0)


@dataclass
class SemanticSide:
    """What the event loop hands the database thread during a ranking: the query's
    vector (None: no semantic side) and the nearest memories and messages to it."""

    vector: np.ndarray | None
    memories: SemanticCandidates
    messages: SemanticCandidates


@dataclass(frozen=True)
class EpisodicQuery:
    """What the message tier needs of a search besides its words."""

    excluded: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()  # normalised capitalised words of the query
    periods: tuple[tuple[str, str], ...] = ()  # days and months it names
    now: str = "now"  # when it is asked (ISO, UTC): messages' ages count from it
    first_person: bool = False  # "I", "my": the user's own messages are about it
    anchors: tuple[EventAnchor, ...] = ()  # "before I moved" (relative_time.EventAnchor)
    # The names it asks about as speakers ("Jon" in "what did Jon say about Gina's
    # store?"): ``author`` lifts what they said. ``names`` stay every name (the floor).
    speakers: frozenset[str] = frozenset()
    asks_when: bool = False  # it asks for a time: ``answer_time`` lifts messages that say one
    # What it asks about (query.topic_stems, names out): a message that says when
    # answers it only if it shares one of these ("the race", not "every Wednesday").
    topic: frozenset[str] = frozenset()


@dataclass
class ScoredCandidates:
    """One tier's candidates, aligned arrays, scored; the flags say why (reasons)."""

    ids: np.ndarray
    score: np.ndarray
    lexical: np.ndarray  # bool
    semantic: np.ndarray  # bool: a semantic reason (see memory_tier)
    pinned: np.ndarray
    recent: np.ndarray
    same_conversation: np.ndarray
    named: np.ndarray  # bool: said by someone the query names, "I" the user (messages)
    dated: np.ndarray  # bool: written on a day the query names (messages)
    # The relevance floor's inputs (see floor.py): each candidate's cosine standing in
    # the collection, and for messages the ids of the messages before and after it.
    standing: np.ndarray | None = None
    before: np.ndarray | None = None
    after: np.ndarray | None = None
    # Said by someone the query names by name (not "I": on questions about the asker
    # every message the user wrote would pass the floor).
    named_by_name: np.ndarray | None = None


def no_candidates() -> ScoredCandidates:
    empty = np.zeros(0, bool)
    return ScoredCandidates(np.zeros(0, np.int64), np.zeros(0, np.float32), *[empty] * 7)


def scale_between(scores: np.ndarray, floor: float, top: float) -> np.ndarray:
    """``scores`` mapped from [floor, top] onto [0, 1] (clipped)."""
    if top <= floor:
        return np.where(scores >= top, 1.0, 0.0).astype(np.float32)
    return np.clip((scores - floor) / (top - floor), 0.0, 1.0).astype(np.float32)


def age_days(touched_ms: np.ndarray) -> np.ndarray:
    """Days since ``touched_ms``, computed as SQLite's
    ``max(julianday('now') - julianday(touched), 0)`` is (Julian days from whole
    milliseconds), so the ranking is the one the SQL gave, to the last bit."""
    now_ms = time.time_ns() // 1_000_000
    now = (now_ms + sql.JULIAN_EPOCH_MS) / 86_400_000.0
    age = np.maximum(now - (touched_ms + sql.JULIAN_EPOCH_MS) / 86_400_000.0, 0.0)
    return np.where(np.isnan(touched_ms), 0.0, age).astype(np.float32)
