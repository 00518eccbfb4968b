"""The chunks' vectors in memory, with the document each belongs to.

Like the memories' :class:`~acai_desktop.core.memory.vector_index.VectorIndex`, a
small collection is searched exactly, with one matrix-vector product (numpy's
single-threaded ``einsum``; see that module for why not BLAS). A large one (more than
:data:`EXACT_UP_TO` chunks searched) is searched in two stages: the chunks' packed
sign bits (:mod:`~acai_desktop.core.documents.sign_codes`) estimate every cosine, and
the :data:`SHORTLIST` best estimates are scored exactly from the float vectors. At
100,000 chunks the exact product read 100 MB per search; the two stages read about
5 MB. The relevance floor still weighs a passage's cosine against the cosines of
*every* chunk searched: their mean and standard deviation follow exactly from the
vectors' sum and second moments (:class:`CosineMoments`), without the product.

Each row carries its document, and a document's rows are contiguous (loaded sorted
by document, a document replaced by removing its rows and appending the new ones),
so a conversation's document scope is a few row ranges, not a mask over every row.
Only the event loop changes the index (:meth:`ChunkVectors.load` may run on a
worker thread before anything else holds it); readers on the database thread hold
:attr:`lock`.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

import numpy as np

from acai_desktop.core.documents.sign_codes import SignCodes

#: Rows scored exactly after the first stage. On 70,000 real chat turns 99.8 % of the
#: exact 50 nearest are among the best 2,000 estimates; on the benchmark's synthetic
#: manual (near-duplicate passages) 98.5 % (see docs/architecture.md).
SHORTLIST = 2000
#: Up to this many rows searched, the exact product is about as cheap as two stages.
EXACT_UP_TO = 8 * SHORTLIST
#: Rows per block when summing second moments (float32 products, float64 sums).
MOMENT_BLOCK = 8192


@dataclass(frozen=True)
class CosineSpread:
    """The query's cosines over the chunks searched: mean, standard deviation, number."""

    mean: float = 0.0
    spread: float = 1.0
    items: int = 0

    @classmethod
    def of(cls, cosines: np.ndarray) -> CosineSpread:
        if not len(cosines):
            return cls()
        spread = float(cosines.std()) if len(cosines) > 1 else 0.0
        return cls(float(cosines.mean()), spread if spread > 1e-6 else 1.0, len(cosines))

    @classmethod
    def from_sums(cls, total: float, squares: float, items: int) -> CosineSpread:
        """From the sum of the cosines and of their squares over ``items`` rows."""
        if items <= 0:
            return cls()
        mean = total / items
        spread = float(np.sqrt(max(squares / items - mean * mean, 0.0))) if items > 1 else 0.0
        return cls(float(mean), spread if spread > 1e-6 else 1.0, items)


class CosineMoments:
    """The rows' sum and the sum of their outer products (float64): the sum of a
    query's cosines with every row is ``q · sum``, of their squares ``q · M q``."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.reset()

    def reset(self) -> None:
        self.total = np.zeros(self.dimensions, np.float64)
        self.outer = np.zeros((self.dimensions, self.dimensions), np.float64)

    def add(self, rows: np.ndarray, sign: float = 1.0) -> None:
        for start in range(0, len(rows), MOMENT_BLOCK):
            block = rows[start : start + MOMENT_BLOCK]
            self.total += sign * block.sum(axis=0, dtype=np.float64)
            self.outer += sign * (block.T @ block).astype(np.float64)

    def sums(self, query: np.ndarray) -> tuple[float, float]:
        """(sum of the cosines, sum of their squares) of ``query`` with every row."""
        q = query.astype(np.float64)
        return float(q @ self.total), float(q @ self.outer @ q)


class ChunkVectors:
    def __init__(
        self, dimensions: int, exact_up_to: int = EXACT_UP_TO, shortlist: int = SHORTLIST
    ) -> None:
        self.dimensions = dimensions
        # Searches of up to this many rows are exact (the benchmark sets it beyond the
        # collection's size to compare the two stages with the exact search).
        self.exact_up_to = exact_up_to
        self.shortlist = shortlist
        self.lock = threading.Lock()
        self._ids = np.zeros(0, np.int64)
        self._documents = np.zeros(0, np.int64)
        self._matrix = np.zeros((0, dimensions), np.float32)
        self._row_of: dict[int, int] = {}
        self._span_of: dict[int, tuple[int, int]] = {}  # document -> its rows [start, stop)
        self._codes = SignCodes(dimensions)
        self._moments = CosineMoments(dimensions)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, chunk_id: int) -> bool:
        return chunk_id in self._row_of

    def load(self, ids: np.ndarray, documents: np.ndarray, vectors: np.ndarray) -> None:
        with self.lock:
            documents = np.asarray(documents, np.int64)
            ids = np.asarray(ids, np.int64)
            matrix = np.asarray(vectors, np.float32).reshape(len(ids), self.dimensions)
            runs = np.count_nonzero(np.diff(documents)) + 1 if len(documents) else 0
            if runs != len(np.unique(documents)):  # a document's rows apart: group them
                order = np.argsort(documents, kind="stable")
                ids, documents, matrix = ids[order], documents[order], matrix[order]
            self._ids = ids.copy()
            self._documents = documents.copy()
            self._matrix = np.ascontiguousarray(matrix)
            self._recode()
            self._reindex()

    def replace_document(
        self, document_id: int, ids: list[int], vectors: np.ndarray | list[np.ndarray]
    ) -> None:
        """The document's rows become these (a document is indexed or re-indexed whole);
        ``vectors``: one array, or the batches they were embedded in (copied once)."""
        parts = vectors if isinstance(vectors, list) else [vectors]
        parts = [np.asarray(part, np.float32).reshape(-1, self.dimensions) for part in parts]
        if sum(len(part) for part in parts) != len(ids):
            raise ValueError("one vector per chunk id")
        with self.lock:
            # The document's rows are one range: the others are two slices (views), so
            # the matrix is copied once, as a whole, with the new rows.
            start, stop = self._span_of.get(document_id, (len(self._ids), len(self._ids)))
            if stop > start:
                self._moments.add(self._matrix[start:stop], sign=-1.0)
                keep = np.ones(len(self._ids), bool)
                keep[start:stop] = False
                self._codes.keep(keep)
            kept = len(self._ids) - (stop - start)
            self._ids = np.concatenate(
                [self._ids[:start], self._ids[stop:], np.asarray(ids, np.int64)]
            )
            self._documents = np.concatenate(
                [
                    self._documents[:start],
                    self._documents[stop:],
                    np.full(len(ids), document_id, np.int64),
                ]
            )
            self._matrix = np.concatenate([self._matrix[:start], self._matrix[stop:], *parts])
            added = self._matrix[kept:]
            coded_at = self._codes.coded_at
            if len(self._ids) > 2 * coded_at or 2 * len(self._ids) < coded_at:
                self._recode()  # the collection changed much: a new centre, fresh sums
            else:
                self._codes.append(added)
                self._moments.add(added)
            self._reindex()

    def remove_document(self, document_id: int) -> None:
        self.replace_document(document_id, [], np.zeros((0, self.dimensions), np.float32))

    def nearest(
        self,
        query: np.ndarray,
        count: int,
        documents: list[int] | None = None,
        excluded: list[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, cosines) of the ``count`` nearest chunks, best first, among
        ``documents`` when given, never of the ``excluded`` documents."""
        ids, scores, _ = self.nearest_in_spread(query, count, documents, excluded)
        return ids, scores

    def nearest_in_spread(
        self,
        query: np.ndarray,
        count: int,
        documents: list[int] | None = None,
        excluded: list[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, CosineSpread]:
        """:meth:`nearest`, and the query's cosines over every chunk searched (their
        mean, standard deviation and number): what a passage's cosine is weighed
        against by the relevance floor."""
        query = np.asarray(query, np.float32)
        with self.lock:
            searched = self._searched_rows(documents, excluded)
            size = len(self._ids) if searched is None else len(searched)
            if not size or count <= 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32), CosineSpread()
            left_out = len(self._ids) - size
            if size <= max(self.exact_up_to, count) or left_out > size:
                rows, scores = self._exact(query, searched)
                spread = CosineSpread.of(scores)
            else:
                rows, scores = self._two_stage(query, searched, max(self.shortlist, count))
                spread = self._spread(query, searched, size)
            count = min(count, len(rows))
            if count < len(rows):
                best = np.argpartition(-scores, count - 1)[:count]
            else:
                best = np.arange(len(rows))
            best = best[np.argsort(-scores[best], kind="stable")]
            return self._ids[rows[best]], scores[best].astype(np.float32), spread

    def cosines(self, chunk_ids: list[int], query: np.ndarray) -> np.ndarray:
        """Each chunk's cosine with ``query`` (0 for a chunk not in the index)."""
        with self.lock:
            rows = np.array([self._row_of.get(i, -1) for i in chunk_ids], np.int64)
            present = rows >= 0
            out = np.zeros(len(chunk_ids), np.float32)
            if present.any():
                out[present] = np.einsum(
                    "ij,j->i", self._matrix[rows[present]], np.asarray(query, np.float32)
                )
            return out

    # -- searching -------------------------------------------------------------------

    def _searched_rows(
        self, documents: list[int] | None, excluded: list[int] | None
    ) -> np.ndarray | None:
        """The rows a search may return, ascending (None: every row)."""
        if documents is None and not excluded:
            return None
        left_out = set(excluded or ())
        if documents is not None:
            spans = sorted(
                self._span_of[d] for d in set(documents) - left_out if d in self._span_of
            )
            if not spans:
                return np.zeros(0, np.int64)
            return np.concatenate([np.arange(start, stop) for start, stop in spans])
        keep = np.ones(len(self._ids), bool)
        for document in left_out:
            start, stop = self._span_of.get(document, (0, 0))
            keep[start:stop] = False
        return np.flatnonzero(keep)

    def _exact(self, query: np.ndarray, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if rows is None:
            return np.arange(len(self._ids)), np.einsum("ij,j->i", self._matrix, query)
        return rows, np.einsum("ij,j->i", np.take(self._matrix, rows, axis=0), query)

    def _two_stage(
        self, query: np.ndarray, rows: np.ndarray | None, shortlist: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``shortlist`` rows with the best estimated cosines, scored exactly."""
        best = self._codes.best(query, shortlist, rows)  # ascending: memory order reads faster
        return best, np.einsum("ij,j->i", np.take(self._matrix, best, axis=0), query)

    def _spread(self, query: np.ndarray, rows: np.ndarray | None, size: int) -> CosineSpread:
        """The query's cosines over the searched rows, from the moments of every row
        less the exact cosines of the rows left out (fewer than those searched)."""
        total, squares = self._moments.sums(query)
        if rows is not None:
            left_out = np.ones(len(self._ids), bool)
            left_out[rows] = False
            cosines = np.einsum("ij,j->i", self._matrix[left_out], query).astype(np.float64)
            total -= float(cosines.sum())
            squares -= float(cosines @ cosines)
        return CosineSpread.from_sums(total, squares, size)

    # -- upkeep ----------------------------------------------------------------------

    def _recode(self) -> None:
        self._codes.rebuild(self._matrix)
        self._moments.reset()
        self._moments.add(self._matrix)

    def _reindex(self) -> None:
        self._row_of = {int(i): row for row, i in enumerate(self._ids.tolist())}
        self._span_of = {}
        if len(self._documents):
            starts = np.flatnonzero(np.diff(self._documents)) + 1
            bounds = [0, *starts.tolist(), len(self._documents)]
            for start, stop in itertools.pairwise(bounds):
                self._span_of[int(self._documents[start])] = (start, stop)
