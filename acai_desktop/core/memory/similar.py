"""The memories closest in meaning to a text, for reconciling a new fact with what is
already known (the processors ask :meth:`MemoryService.similar`)."""

from __future__ import annotations

import numpy as np

from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.store import memories
from acai_desktop.core.store.database import Store


async def similar_memories(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    vector: np.ndarray,
    *,
    k: int,
    kinds: set[str] | None,
    include_temporary: bool,
) -> list[tuple[MemoryItem, float]]:
    """The ``k`` memories (of ``kinds``, None: any) closest to ``vector`` by cosine,
    closest first: active ones from the index and, with ``include_temporary``, the
    temporary ones from their stored vectors (the index holds active memories only)."""
    score_of: dict[int, float] = {}
    if len(index):
        # Ask for more than k: some neighbours may be of another kind.
        ids, scores = index.top_k(vector, k if kinds is None else k * 4)
        score_of.update({int(i): float(s) for i, s in zip(ids, scores, strict=True)})
    if include_temporary:
        ids, vectors = await store.run(
            memories.embeddings_with_status,
            "temporary",
            embedder.name,
            embedder.dimensions,
            sorted(kinds) if kinds else None,
        )
        if len(ids):
            norms = np.linalg.norm(vectors, axis=1) * (float(np.linalg.norm(vector)) or 1.0)
            scores = (vectors @ vector) / np.where(norms == 0, 1.0, norms)
            best = np.argsort(-scores)[:k]
            score_of.update({int(ids[i]): float(scores[i]) for i in best})
    if not score_of:
        return []
    items = await store.run(memories.memories_by_id, list(score_of))
    matches = [(items[i], score) for i, score in score_of.items() if i in items]
    if kinds is not None:
        matches = [(item, score) for item, score in matches if str(item.kind) in kinds]
    matches.sort(key=lambda match: -match[1])
    return matches[:k]
