"""The Embedder protocol: text in, unit-length float32 vectors out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    #: Stored beside every embedding, so a change of embedder is detectable.
    name: str
    dimensions: int

    async def embed(self, texts: list[str]) -> np.ndarray:
        """An array of shape (len(texts), dimensions), float32, each row L2-normalised."""
        ...

    def embeds_now(self, texts: list[str]) -> bool:
        """True when :meth:`embed` of ``texts`` would finish without suspending (no model
        to load, no network, no worker thread): a search may then embed its query while
        the database thread already runs the full-text queries (see
        :meth:`HybridRetriever.rank`), which must never wait on anything slow."""
        ...


#: The most characters of one text an embedder is given: a document's chunk is far
#: shorter (see ``documents.chunking``); a longer memory or query is represented by its
#: beginning. Without a ceiling one 4 MB text took gigabytes to embed (WordLlama pads a
#: batch to its longest text) or overflowed a provider's context.
MAX_EMBED_CHARACTERS = 8_000


def clip_for_embedding(texts: list[str]) -> list[str]:
    """``texts``, each cut to :data:`MAX_EMBED_CHARACTERS` (every embedder calls this)."""
    return [text[:MAX_EMBED_CHARACTERS] for text in texts]


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # an empty text embeds to zeros; keep it zero, not NaN
    return matrix / norms
