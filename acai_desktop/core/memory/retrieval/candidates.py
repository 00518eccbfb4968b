"""The data a ranking passes between its steps: candidates of each side, scored
candidates of each tier, and what the query says besides its words."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from acai_desktop.core.store import search as sql


@dataclass
class SemanticCandidates:
    ids: np.ndarray
    scores: np.ndarray
    floor: float  # the cosine of the last semantic candidate (normalisation's zero)


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
    named: np.ndarray  # bool: said by someone the query names (messages)
    dated: np.ndarray  # bool: written on a day the query names (messages)


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
