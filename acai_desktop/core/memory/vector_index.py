"""An in-memory matrix of the retrievable memories' normalised embeddings.

Exact cosine search is one matrix-vector product; at 100,000 memories of 256 floats
that is 100 MB of float32 and a few milliseconds, with no SQLite extension needed.
The product is numpy's own single-threaded loop (``einsum``), not BLAS: OpenBLAS's
thread pool made the same product 20-40 times slower (0.4 ms -> 8-16 ms at 10,000
rows) whenever another program kept the other core busy, which on a desktop is
the normal case; at 100,000 rows the product is memory-bound and einsum is as fast.
The matrix grows by doubling so an insert is amortised O(1); a removal swaps the last
row into the hole.
"""

from __future__ import annotations

import numpy as np


class VectorIndex:
    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._matrix = np.zeros((64, dimensions), dtype=np.float32)
        self._ids = np.zeros(64, dtype=np.int64)
        self._row_of: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, memory_id: int) -> bool:
        return memory_id in self._row_of

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: len(self)]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: len(self)]

    def load(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Replace the whole content (start-up, or after re-embedding)."""
        count = len(ids)
        capacity = max(64, 1 << max(count - 1, 1).bit_length())
        self._matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
        self._ids = np.zeros(capacity, dtype=np.int64)
        if count:
            self._matrix[:count] = vectors
            self._ids[:count] = ids
        self._row_of = {int(memory_id): row for row, memory_id in enumerate(ids)}

    def upsert(self, memory_id: int, vector: np.ndarray) -> None:
        row = self._row_of.get(memory_id)
        if row is None:
            row = len(self)
            if row == len(self._ids):
                self._grow()
            self._row_of[memory_id] = row
            self._ids[row] = memory_id
        self._matrix[row] = vector

    def remove(self, memory_id: int) -> None:
        row = self._row_of.pop(memory_id, None)
        if row is None:
            return
        last = len(self)  # count after the pop == index of the old last row
        if row != last:
            moved = int(self._ids[last])
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._row_of[moved] = row

    def vector(self, memory_id: int) -> np.ndarray:
        """A copy of one memory's vector (KeyError if it isn't in the index)."""
        return self._matrix[self._row_of[memory_id]].copy()

    def similarities(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ids, cosine similarity) for every memory in the index."""
        return self.ids, np.einsum("ij,j->i", self.matrix, np.asarray(query, dtype=np.float32))

    def top_k(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        ids, scores = self.similarities(query)
        if k >= len(scores):
            order = np.argsort(-scores)
        else:
            part = np.argpartition(-scores, k)[:k]
            order = part[np.argsort(-scores[part])]
        return ids[order], scores[order]

    def _grow(self) -> None:
        capacity = len(self._ids) * 2
        matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
        matrix[: len(self)] = self._matrix[: len(self)]
        ids = np.zeros(capacity, dtype=np.int64)
        ids[: len(self)] = self._ids[: len(self)]
        self._matrix, self._ids = matrix, ids
