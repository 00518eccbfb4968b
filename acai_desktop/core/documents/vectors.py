"""The chunks' vectors in memory, with the document each belongs to.

Like the memories' :class:`~acai_desktop.core.memory.vector_index.VectorIndex`, exact
cosine search is one matrix-vector product (numpy's single-threaded ``einsum``; see
that module for why not BLAS); unlike it, each row carries its document, so a
conversation's document scope is a mask, not a second query. Rows are added a
document at a time and removed a document at a time. Only the event loop changes it;
readers on the database thread hold :attr:`lock`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np


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


class ChunkVectors:
    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.lock = threading.Lock()
        self._ids = np.zeros(0, np.int64)
        self._documents = np.zeros(0, np.int64)
        self._matrix = np.zeros((0, dimensions), np.float32)
        self._row_of: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, chunk_id: int) -> bool:
        return chunk_id in self._row_of

    def load(self, ids: np.ndarray, documents: np.ndarray, vectors: np.ndarray) -> None:
        with self.lock:
            self._ids = np.asarray(ids, np.int64).copy()
            self._documents = np.asarray(documents, np.int64).copy()
            if len(ids):
                self._matrix = np.ascontiguousarray(vectors, np.float32)
            else:
                self._matrix = np.zeros((0, self.dimensions), np.float32)
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
            keep = self._documents != document_id
            self._ids = np.concatenate([self._ids[keep], np.asarray(ids, np.int64)])
            self._documents = np.concatenate(
                [self._documents[keep], np.full(len(ids), document_id, np.int64)]
            )
            self._matrix = np.concatenate([self._matrix[keep], *parts])
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
        against by the relevance floor, taken from the one product."""
        with self.lock:
            if not len(self._ids) or count <= 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32), CosineSpread()
            scores = np.einsum("ij,j->i", self._matrix, np.asarray(query, np.float32))
            if documents is not None:
                scores = np.where(np.isin(self._documents, documents), scores, -np.inf)
            if excluded:
                scores = np.where(np.isin(self._documents, excluded), -np.inf, scores)
            searched = scores if documents is None and not excluded else scores[np.isfinite(scores)]
            spread = CosineSpread.of(searched)
            count = min(count, len(scores))
            top = np.argpartition(-scores, count - 1)[:count] if count < len(scores) else None
            top = np.arange(len(scores)) if top is None else top
            top = top[np.isfinite(scores[top])]
            top = top[np.argsort(-scores[top], kind="stable")]
            return self._ids[top].copy(), scores[top].astype(np.float32), spread

    def cosines(self, chunk_ids: list[int], query: np.ndarray) -> np.ndarray:
        """Each chunk's cosine with ``query`` (0 for a chunk not in the index)."""
        with self.lock:
            rows = np.array([self._row_of.get(i, -1) for i in chunk_ids], np.int64)
            present = rows >= 0
            out = np.zeros(len(chunk_ids), np.float32)
            if present.any():
                out[present] = self._matrix[rows[present]] @ np.asarray(query, np.float32)
            return out

    def _reindex(self) -> None:
        self._row_of = {int(i): row for row, i in enumerate(self._ids.tolist())}
