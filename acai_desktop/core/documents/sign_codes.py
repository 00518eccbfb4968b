"""The first stage of the chunks' cosine search: each vector's signs, one bit a dimension.

At 100,000 chunks of 256 floats the exact product reads 100 MB and is memory-bound
(5-10 ms, most of a document search). Here each vector is kept as its signs around
the collection's mean, packed 64 to a word (3.2 MB at that size), and a query's
cosine with every row is *estimated* from them: the query stays in floats, cut into
a few bit planes, and the estimate is a weighted sum of popcounts (asymmetric binary
quantisation: far closer to the cosine than comparing two sign patterns). The rows
with the best estimates are then scored exactly by :class:`~acai_desktop.core.
documents.vectors.ChunkVectors`; docs/architecture.md gives how often the exact top
50 is among them.

The words are stored column-major (one contiguous array per word position), so each
step of the estimate is one pass of numpy's vectorised AND and popcount over every
row; row-major, summing four words per row was four times slower.
"""

from __future__ import annotations

import numpy as np

#: The query's floats are rounded to 2**QUERY_BITS levels, one bit plane each. On
#: 70,000 real chat turns 3 bits put 99.7 % of the exact 50 nearest among the best
#: 2,000 estimates, 4 bits 99.8 % for a quarter more time; a plane is a pass over
#: the codes.
QUERY_BITS = 3
#: Rows coded at a time.
ENCODE_BLOCK = 8192


class SignCodes:
    """Packed sign bits of a matrix's rows around a centre, with the count of set bits
    of each row. Rows are appended and removed as the matrix's are, in the same order."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.words = (dimensions + 63) // 64
        self.centre = np.zeros(dimensions, np.float32)
        self._codes = np.zeros((self.words, 0), np.uint64)
        self._ones = np.zeros(0, np.float32)
        self.coded_at = 0  # how many rows there were when the centre was chosen

    def __len__(self) -> int:
        return self._codes.shape[1]

    def rebuild(self, matrix: np.ndarray) -> None:
        """Code every row of ``matrix`` around its mean (a new centre)."""
        if len(matrix):
            self.centre = matrix.mean(axis=0, dtype=np.float64).astype(np.float32)
        else:
            self.centre = np.zeros(self.dimensions, np.float32)
        self._codes, self._ones = self._encode(matrix)
        self.coded_at = len(matrix)

    def append(self, vectors: np.ndarray) -> None:
        """Code new rows around the current centre."""
        codes, ones = self._encode(vectors)
        self._codes = np.concatenate([self._codes, codes], axis=1)
        self._ones = np.concatenate([self._ones, ones])

    def keep(self, rows: np.ndarray) -> None:
        """Keep only these rows (a boolean mask or indices), in order."""
        self._codes = np.ascontiguousarray(self._codes[:, rows])
        self._ones = self._ones[rows]

    def estimates(self, query: np.ndarray) -> np.ndarray:
        """For every row, a number that grows with its cosine with ``query`` (not a
        cosine: only its order among rows means something)."""
        query = np.asarray(query, np.float32)
        low, high = float(query.min()), float(query.max())
        step = (high - low) / (2**QUERY_BITS - 1) or 1.0
        levels = np.rint((query - low) / step).astype(np.uint8)
        # query ≈ low + step * levels, so query · bits = low * ones + step * levels · bits,
        # and levels · bits is the sum over bit planes of 2**plane * popcount(plane & bits).
        estimate = self._ones * np.float32(low / step)
        count = np.empty(len(self), np.uint8)
        scratch = np.empty(len(self), np.uint64)
        planes = self._pack(((levels >> np.arange(QUERY_BITS)[:, None]) & 1).astype(bool))
        for plane in range(QUERY_BITS):
            matches = np.zeros(len(self), np.uint16)
            for word, bits in zip(self._codes, planes[:, plane].tolist(), strict=True):
                if not bits:
                    continue
                np.bitwise_and(word, np.uint64(bits), out=scratch)
                np.bitwise_count(scratch, out=count)
                matches += count
            estimate += matches * np.float32(1 << plane)
        return estimate

    def best(self, query: np.ndarray, count: int, rows: np.ndarray | None = None) -> np.ndarray:
        """The ``count`` rows (among ``rows``, default all) with the best estimates,
        ascending. Selected by a histogram of the estimates' whole units (a plane-0
        step of the query: far finer than the estimate's own error), which took a
        third of the time of ``argpartition`` over 100,000 floats."""
        estimates = self.estimates(query)
        if rows is not None:
            estimates = estimates[rows]
        if count >= len(estimates):
            return np.arange(len(estimates)) if rows is None else rows
        units = np.floor(estimates).astype(np.int32)
        lowest = int(units.min())
        from_top = np.cumsum(np.bincount(units - lowest)[::-1])
        cut = int(from_top.size - 1 - np.searchsorted(from_top, count)) + lowest
        above = np.flatnonzero(units > cut)
        chosen = np.concatenate([above, np.flatnonzero(units == cut)[: count - len(above)]])
        chosen.sort()
        return chosen if rows is None else rows[chosen]

    def _encode(self, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        vectors = np.asarray(vectors, np.float32).reshape(-1, self.dimensions)
        # A block at a time: one comparison of 100,000 rows is a 25 MB temporary.
        codes = np.zeros((self.words, len(vectors)), np.uint64)
        for start in range(0, len(vectors), ENCODE_BLOCK):
            block = vectors[start : start + ENCODE_BLOCK]
            codes[:, start : start + len(block)] = self._pack(block > self.centre)
        ones = np.zeros(codes.shape[1], np.float32)
        for word in codes:
            ones += np.bitwise_count(word)
        return codes, ones

    def _pack(self, bits: np.ndarray) -> np.ndarray:
        """Rows of booleans -> (words, rows) uint64, column-major, zero-padded."""
        packed = np.packbits(bits, axis=1)
        padded = np.zeros((len(bits), self.words * 8), np.uint8)
        padded[:, : packed.shape[1]] = packed
        return np.ascontiguousarray(padded.view(np.uint64).T)
