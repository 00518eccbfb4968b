"""An in-memory matrix of the retrievable memories' normalised embeddings, with the
few facts about each memory that ranking needs.

Exact cosine search is one matrix-vector product; at 100,000 memories of 256 floats
that is 100 MB of float32 and a few milliseconds, with no SQLite extension needed.
The product is one dot product per row (``np.vecdot``, numpy's gufunc: a single
thread), not BLAS's matrix-vector product: OpenBLAS's thread pool made that 20-40
times slower (0.4 ms -> 8-16 ms at 10,000 rows) whenever another program kept the
other core busy, which on a desktop is the normal case. ``vecdot`` took half the time
of ``einsum`` (numpy's own loop, used before) at 5,000 rows, 0.11 ms against 0.22 ms,
and 16 % less at 50,000, where the product is memory-bound.
The matrix grows by doubling so an insert is amortised O(1); a removal swaps the last
row into the hole.

Next to each vector the index keeps the memory's :class:`RankingFacts` (importance,
pinned, when it was last touched, its conversation) in parallel arrays, so a search
adjusts its candidates' scores without asking the database: that was a third of a
search's time. A row whose facts were never given (``known`` is false) makes the
retriever read them from the database instead, so a forgotten update costs speed,
never a wrong ranking.

Only the event loop changes the index. The retriever's database-thread half reads it
through :meth:`lookup`, which holds :attr:`lock` — as does every change — so it never
sees a row half moved.

A search computes the query's cosine with every row once, on the loop
(:meth:`cosines`); the candidates' cosines are then read out of that product by row
(:meth:`lookup`) rather than computed again from their gathered vectors. The product
carries the index's :attr:`version`, which every change of a vector or of the rows'
order advances: a product taken before such a change is not used, the lookup computes
its cosines from the vectors as they are.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat

import numpy as np

from acai_desktop.core.records.memories import MemoryItem


def best_positions(scores: np.ndarray, count: int) -> np.ndarray:
    """The positions of the ``count`` highest finite ``scores`` (fewer if fewer are
    finite), best first; among equal scores the earlier position first, and at the cut
    the earlier ones are kept.

    Found by the ``count``-th highest value (``np.partition``, which moves the values
    alone) and one comparison, not by ``np.argpartition``, which moves their positions
    too: the whole selection took 0.30 against 0.52 ms over 50,000 cosines (a search
    makes one for memories and one for messages)."""
    total = len(scores)
    if count <= 0 or not total:
        return np.zeros(0, np.intp)
    if np.isnan(scores.max()):  # never a cosine of two vectors: left out, as -inf is
        scores = np.where(np.isnan(scores), -np.inf, scores)
    if count >= total:
        top = np.flatnonzero(np.isfinite(scores))
    else:
        cut = np.partition(scores, total - count)[total - count]
        if cut == -np.inf:  # fewer finite scores than ``count``: all of them
            top = np.flatnonzero(np.isfinite(scores))
        else:
            above = np.flatnonzero(scores > cut)
            top = np.concatenate([above, np.flatnonzero(scores == cut)[: count - len(above)]])
    return top[np.argsort(-scores[top], kind="stable")]


@dataclass(frozen=True)
class RankingFacts:
    """What ranking needs of a memory besides its vector."""

    importance: float
    pinned: bool
    # Milliseconds since the epoch of the later of updated_at and last_used_at
    # (recency), rounded as SQLite's julianday() rounds, so ages match the SQL ones.
    touched_ms: float
    conversation_id: int  # -1 for none

    @classmethod
    def of(cls, item: MemoryItem) -> RankingFacts:
        return cls(
            importance=float(item.importance),
            pinned=bool(item.pinned),
            touched_ms=_milliseconds(max(item.updated_at, item.last_used_at or "")),
            conversation_id=-1 if item.conversation_id is None else int(item.conversation_id),
        )


def _milliseconds(timestamp: str) -> float:
    """Milliseconds since the epoch as SQLite's julianday() reads ``timestamp``: no
    zone means UTC, fractions of a second round half up to the millisecond;
    unreadable gives NaN, which ranking treats as "just now", as SQL's NULL was."""
    try:
        moment = datetime.fromisoformat(timestamp)
    except ValueError:
        return float("nan")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    whole = int(moment.replace(microsecond=0).timestamp())
    return float(whole * 1000 + (moment.microsecond + 500) // 1000)


@dataclass(frozen=True)
class Cosines:
    """A query's cosine with every row of an index (:meth:`VectorIndex.cosines`), row by
    row as the index stood at ``version``."""

    ids: np.ndarray
    scores: np.ndarray
    version: int


@dataclass
class Lookup:
    """What the index holds for some ids, aligned with them (see :meth:`VectorIndex.lookup`)."""

    indexed: np.ndarray  # bool
    known: np.ndarray  # bool: indexed and its facts were given
    importance: np.ndarray
    pinned: np.ndarray
    touched_ms: np.ndarray
    conversation_id: np.ndarray
    cosine: np.ndarray  # with the query; 0 where not indexed


class VectorIndex:
    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.lock = threading.Lock()
        self._row_of: dict[int, int] = {}
        # Advanced by every change of a vector or of which row holds which id (see
        # Cosines): a product taken at another version is stale.
        self._version = 0
        self._allocate(64)

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, memory_id: int) -> bool:
        return memory_id in self._row_of

    @property
    def version(self) -> int:
        return self._version

    def membership(self) -> Callable[[int], bool]:
        """The index's membership test as it stands (a dict's own, one C call per id:
        a search asks it of every lexical candidate); :meth:`load` replaces the dict,
        so ask again after one."""
        return self._row_of.__contains__

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: len(self)]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: len(self)]

    def load(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Replace the whole content (start-up, or after re-embedding); the facts are
        unknown until :meth:`set_facts_many` gives them."""
        with self.lock:
            count = len(ids)
            self._allocate(max(64, 1 << max(count - 1, 1).bit_length()))
            if count:
                self._matrix[:count] = vectors
                self._ids[:count] = ids
            self._row_of = {int(memory_id): row for row, memory_id in enumerate(ids)}
            self._version += 1

    def upsert(self, memory_id: int, vector: np.ndarray, facts: RankingFacts | None = None) -> None:
        """Add or replace a memory's vector; ``facts`` None keeps the ones it had."""
        with self.lock:
            row = self._row_of.get(memory_id)
            if row is None:
                row = len(self)
                if row == len(self._ids):
                    self._grow()
                self._row_of[memory_id] = row
                self._ids[row] = memory_id
                self._known[row] = False
            self._matrix[row] = vector
            self._version += 1
            if facts is not None:
                self._write_facts(row, facts)

    def set_facts(self, memory_id: int, facts: RankingFacts) -> None:
        """Update the facts of a memory in the index (no-op for one that isn't)."""
        with self.lock:
            row = self._row_of.get(memory_id)
            if row is not None:
                self._write_facts(row, facts)

    def set_facts_many(
        self,
        ids: np.ndarray,
        importance: np.ndarray,
        pinned: np.ndarray,
        touched_ms: np.ndarray,
        conversation_id: np.ndarray,
    ) -> None:
        """Facts of many memories at once (after :meth:`load`); ids not in the index
        are skipped."""
        with self.lock:
            rows = self.rows(ids)
            present = rows >= 0
            rows = rows[present]
            self._importance[rows] = importance[present]
            self._pinned[rows] = pinned[present]
            self._touched_ms[rows] = touched_ms[present]
            self._conversation[rows] = conversation_id[present]
            self._known[rows] = True

    def remove(self, memory_id: int) -> None:
        with self.lock:
            row = self._row_of.pop(memory_id, None)
            if row is None:
                return
            self._version += 1
            last = len(self)  # count after the pop == index of the old last row
            if row != last:
                moved = int(self._ids[last])
                for array in self._arrays():
                    array[row] = array[last]
                self._row_of[moved] = row

    def rows(self, ids) -> np.ndarray:
        """The row of each id (-1 where it isn't in the index)."""
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        return np.fromiter(map(self._row_of.get, ids, repeat(-1)), np.int64, len(ids))

    def lookup(
        self, ids: list[int], query: np.ndarray | None, cosines: Cosines | None = None
    ) -> Lookup:
        """For each id: whether it is indexed, its facts, and its cosine with ``query``
        (from any thread: under the lock). ``cosines``: the query's product with every
        row (:meth:`cosines`), read by row while the index is still at its version."""
        with self.lock:
            rows, indexed = self._rows_indexed(ids)
            # np.take: the same elements as indexing with ``rows``, without the
            # general fancy-indexing machinery (a search makes a dozen of these).
            return Lookup(
                indexed=indexed,
                known=np.take(self._known, rows) & indexed,
                importance=np.take(self._importance, rows),
                pinned=np.take(self._pinned, rows),
                touched_ms=np.take(self._touched_ms, rows),
                conversation_id=np.take(self._conversation, rows),
                cosine=self._cosines_at(rows, indexed, query, cosines),
            )

    def cosines_of(
        self, ids: list[int], query: np.ndarray | None, cosines: Cosines | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(indexed, cosine)`` of :meth:`lookup` alone, without the facts (a message's
        neighbours need no more)."""
        with self.lock:
            rows, indexed = self._rows_indexed(ids)
            return indexed, self._cosines_at(rows, indexed, query, cosines)

    def _rows_indexed(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Each id's row (0 where it is not indexed: row 0 exists, capacity >= 64) and
        whether it is indexed. Under the lock."""
        rows = self.rows(ids)
        indexed = rows >= 0
        return np.where(indexed, rows, 0), indexed

    def _cosines_at(
        self,
        rows: np.ndarray,
        indexed: np.ndarray,
        query: np.ndarray | None,
        cosines: Cosines | None,
    ) -> np.ndarray:
        """The cosine with ``query`` of each of ``rows`` (0 where not ``indexed``): read
        out of ``cosines`` while it is current, else computed. Under the lock."""
        if cosines is not None and cosines.version == self._version:
            if len(cosines.scores) and len(rows):
                return np.where(indexed, np.take(cosines.scores, rows), 0.0).astype(np.float32)
        elif query is not None and len(rows):
            # A few rows: BLAS stays on one thread at this size.
            vectors = np.take(self._matrix, rows, axis=0)
            return np.where(indexed, vectors @ query, 0.0).astype(np.float32)
        return np.zeros(len(rows), np.float32)

    def vector(self, memory_id: int) -> np.ndarray:
        """A copy of one memory's vector (KeyError if it isn't in the index)."""
        return self._matrix[self._row_of[memory_id]].copy()

    def similarities(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ids, cosine similarity) for every memory in the index."""
        return self.ids, np.vecdot(self.matrix, np.asarray(query, dtype=np.float32))

    def cosines(self, query: np.ndarray) -> Cosines:
        """:meth:`similarities` with the index's version (on the loop, the only thread
        that changes the index, so no change can fall between the two)."""
        ids, scores = self.similarities(query)
        return Cosines(ids, scores, self._version)

    def top_k(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        ids, scores = self.similarities(query)
        if k >= len(scores):
            order = np.argsort(-scores)
        else:
            part = np.argpartition(-scores, k)[:k]
            order = part[np.argsort(-scores[part])]
        return ids[order], scores[order]

    def _write_facts(self, row: int, facts: RankingFacts) -> None:
        self._importance[row] = facts.importance
        self._pinned[row] = facts.pinned
        self._touched_ms[row] = facts.touched_ms
        self._conversation[row] = facts.conversation_id
        self._known[row] = True

    def _allocate(self, capacity: int) -> None:
        self._matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
        self._ids = np.zeros(capacity, dtype=np.int64)
        self._importance = np.zeros(capacity, dtype=np.float32)
        self._pinned = np.zeros(capacity, dtype=bool)
        self._touched_ms = np.zeros(capacity, dtype=np.float64)
        self._conversation = np.full(capacity, -1, dtype=np.int64)
        self._known = np.zeros(capacity, dtype=bool)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self._matrix,
            self._ids,
            self._importance,
            self._pinned,
            self._touched_ms,
            self._conversation,
            self._known,
        )

    def _grow(self) -> None:
        count = len(self)
        old = self._arrays()
        self._allocate(len(self._ids) * 2)
        for new, previous in zip(self._arrays(), old, strict=True):
            new[:count] = previous[:count]
