"""The relevance floor: what a ranking returns enters a prompt only on real evidence.

A ranking always returns its best ``k``, even for a question nothing in memory is
about ("what is my dishwasher's warranty?" brings "My dog's name is Buster"). An item
passes the floor when:

- its word evidence and its meaning evidence together reach the bar
  (:func:`evidence`): the share of the question's informative weight its own words
  cover (:func:`word_coverage`: each query word weighs its IDF in this profile, so a
  word no stored item holds — the thing asked about — weighs most, and a common word
  little), as a fraction of its kind's bar, plus how many standard deviations its
  cosine with the question stands above the mean cosine of every stored item (the
  collection's own distribution calibrates it, whatever the embedder), as a fraction
  of the standing its kind needs. Either alone can carry an item ("Buster" for "my dog Buster"), and
  some of each does too: a short message sharing one rare word and much meaning
  passes, a long answer that shares a third of the question's weight by chance and
  means something else does not;
  A question that names a time ("last Saturday", "two weeks ago") adds a third kind:
  an item told on a day it names (:attr:`FloorItem.on_date`) carries part of the bar,
  so that with some words or meaning it passes ("I got a vintage armchair" for "I
  received a piece of jewelry last Saturday from whom?" said that Saturday), while a
  message of that day about nothing asked stays out;
- or it was said by someone the question names (a recalled message: the name is a word
  they share), or it names someone the question names who speaks in this history (a
  memory: "Caroline attended a support group" for "When did Caroline go…"; a brand or
  a place the question names is a word like any other);
- or it is a recalled message right next to one that passes, in the same chat ("Yes,
  last Friday!" answers the question before it).

Pinned memories are not ranked here; the context builder always includes them. The
bars were calibrated on both kinds of real conversation at once, LoCoMo's chit-chat
between two people and LongMemEval's chats with an assistant (see
``RetrievalWeights.floor_*`` and docs/architecture.md): questions asked of another
person's history, where nothing is relevant, pass under one item in ten places, while
the evidence of real questions is kept as far as its words and meaning show it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from acai_desktop.core.rules.words import tokenize

# Words compare by a light stem, as FTS5's Porter stemmer makes "camping", "camped"
# and "camps" one word in the index: a common ending off, then the first letters.
STEM_LETTERS = 5
_ENDINGS = ("ing", "ed", "es", "er", "ers", "ly", "s")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:STEM_LETTERS]


# A profile with a handful of memories has no word statistics worth the name: IDF is
# counted as if it held at least this many items (the others without the word), so
# the one memory that holds "backend" does not make "backend" worthless.
MIN_ITEMS = 100


def term_weights(counts: Sequence[int], total: int) -> np.ndarray:
    """The IDF of each query word among ``total`` items (Lucene's, always positive),
    from how many hold it (``counts``): a word no item holds weighs the most."""
    total = max(int(total), MIN_ITEMS)
    weights = [math.log(1 + (total - min(c, total) + 0.5) / (min(c, total) + 0.5)) for c in counts]
    return np.asarray(weights, np.float64)


@functools.lru_cache(maxsize=4096)
def stems_of(text: str) -> frozenset[str]:
    """The stems of ``text``'s words (what :func:`word_coverage` compares). Cached by
    the text (a pure function of it): the same memories and messages come back search
    after search, and tokenising them was a tenth of the floor's time."""
    return frozenset(map(stem, set(tokenize(text))))


def holds_any(held: frozenset[str], words: frozenset[str]) -> bool:
    """Whether the stems ``held`` (:func:`stems_of`) hold any of ``words`` (normalised)."""
    return bool(words) and any(stem(word) in held for word in words)


def word_coverage(terms: Sequence[str], weights: np.ndarray, held: frozenset[str]) -> float:
    """The share of the query words' weight that the stems ``held`` hold."""
    return WordWeights(terms, weights).coverage(held)


class WordWeights:
    """The query words' stems and weights (:func:`term_weights`), taken once for the
    :func:`word_coverage` of every item a ranking judges."""

    def __init__(self, terms: Sequence[str], weights: np.ndarray) -> None:
        self._total = float(weights.sum()) if len(terms) else 0.0
        self._stems = [(stem(term), w) for term, w in zip(terms, weights.tolist(), strict=True)]

    def coverage(self, held: frozenset[str]) -> float:
        """The share of the words' weight that the stems ``held`` hold."""
        if not self._stems:
            return 0.0
        got = sum(w for word, w in self._stems if word in held)
        return got / self._total if self._total > 0 else 0.0


@dataclass(frozen=True)
class FloorItem:
    """What the floor reads of one ranked item."""

    coverage: float  # its words' share of the query's weight (word_coverage)
    bar: float  # the share its kind needs
    standing: float  # its cosine's standing in the collection (see SemanticCandidates)
    meaning: float  # the standing its kind needs
    # A message said by someone the query names; a memory that names someone it names.
    named: bool
    message_id: int | None = None  # a recalled message: its id and its neighbours'
    neighbours: tuple[int, int] = (-1, -1)
    # The share of the bar its date carries: told on a day the question names (the
    # ranking's ``on_date``), else nothing.
    on_date: float = 0.0


def words_bar(standing: float, bar: float, without_meaning: float) -> float:
    """The words bar of an item whose cosine has ``standing``: ``bar`` where meaning
    can be weighed, ``without_meaning`` where it cannot (no embedder, or a collection
    too small for a spread: a new profile's first chats). There the words are all the
    evidence there is, and a handful of messages holds few long answers that share
    words by chance."""
    return bar if math.isfinite(standing) else without_meaning


def evidence(item: FloorItem) -> float:
    """How much of the bar ``item``'s own words, meaning and date reach together: its
    coverage as a share of its kind's bar, plus its cosine's standing (below the
    collection's mean counts nothing, as does a collection too small to have a spread)
    as a share of the standing its kind needs, plus its date's share (told on a day the
    question names). 1 or more passes."""
    words = item.coverage / item.bar if item.bar > 0 else 0.0
    return words + max(item.standing, 0.0) / item.meaning + item.on_date


#: Below the first ``k`` of a ranking read deeper (``reach``), an item passes only on
#: evidence of its own this strong (never as a neighbour of one that passes): a question
#: whose evidence lies in many places (everything Caroline said about her research)
#: gets them, while the tail of a question nothing is about stays out. Measured with
#: ``eval ablation`` on both dev files (docs/benchmarks.md).
STRONG_SUPPORT = 1.75


def passing(items: Sequence[FloorItem], sure_within: int | None = None) -> list[bool]:
    """Which ``items`` (ranked) pass the floor (see the module's doc): on their own
    evidence, or as the message just before or after one that does. Below the first
    ``sure_within`` of their tier (None: nowhere) their own evidence must be
    :data:`STRONG_SUPPORT`, and a neighbour's does not carry them."""
    sure = within_first(items, sure_within)
    own = [
        item.named or evidence(item) >= (1.0 if first else STRONG_SUPPORT)
        for item, first in zip(items, sure, strict=True)
    ]
    passed_messages = {
        item.message_id for item, ok in zip(items, own, strict=True) if ok and item.message_id
    }
    return [
        ok
        or (first and item.message_id is not None and bool(passed_messages & set(item.neighbours)))
        for item, ok, first in zip(items, own, sure, strict=True)
    ]


def within_first(items: Sequence[FloorItem], k: int | None) -> list[bool]:
    """Whether each item is among the first ``k`` of its tier (memories, messages) in
    the ranking (None: all are). Counted per tier, so that memories ranked above the
    messages take none of the messages' places, and the reverse: what a learned
    memory adds never displaces what was said."""
    if k is None:
        return [True] * len(items)
    seen = {True: 0, False: 0}
    first = []
    for item in items:
        tier = item.message_id is not None
        first.append(seen[tier] < k)
        seen[tier] += 1
    return first
