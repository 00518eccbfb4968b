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


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # an empty text embeds to zeros; keep it zero, not NaN
    return matrix / norms
