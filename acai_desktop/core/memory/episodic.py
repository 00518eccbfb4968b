"""The semantic side of episodic recall: a vector per recallable message.

Episodic recall finds what was said in past conversations (see
:mod:`acai_desktop.core.store.episodes`). Its words are in ``messages_fts``, kept in
step by triggers; its vectors are here: stored in ``message_embeddings`` and held in
a :class:`VectorIndex` of their own (message ids are not memory ids). A message is
embedded when it becomes recallable — the orchestrator calls :meth:`add` when a
user's message is committed and when an answer is finished — and at start-up any
recallable message without a vector from the current embedder is embedded in the
background (until then it is found by its words). The database triggers drop a
message's vector when its text changes or it is deleted; :meth:`forget` drops it from
the index when its conversation is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.store import episodes
from acai_desktop.core.store.database import Store

EMBED_BATCH = 512
#: A message's vector is made from its first so many characters. Average-pooled over a
#: huge answer (up to the answer size limit, a megabyte) a vector means little, and
#: embedding one took half a gigabyte and seconds; its words stay in the full-text index.
EMBEDDED_CHARACTERS = 8_000


class EpisodicIndex:
    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.index = VectorIndex(embedder.dimensions)

    async def load(self) -> int:
        """Fill the index from the stored vectors of recallable messages."""
        ids, vectors = await self.store.run(
            episodes.recallable_embeddings, self.embedder.name, self.embedder.dimensions
        )
        self.index.load(ids, vectors)
        return len(self.index)

    async def add(self, message_ids: Iterable[int]) -> int:
        """Embed and index these messages if they are recallable and have no vector."""
        ids = [int(i) for i in message_ids]
        return await self.embed_missing(ids) if ids else 0

    async def embed_missing(
        self, ids: list[int] | None = None, *, batch_size: int = EMBED_BATCH
    ) -> int:
        """Embed every recallable message (among ``ids``) without a vector from the
        current embedder, in batches; returns how many were stored."""
        rows = await self.store.run(
            episodes.unembedded_messages, self.embedder.name, self.embedder.dimensions, ids
        )
        return await self.embed_rows(rows, batch_size=batch_size)

    async def embed_rows(
        self, rows: Sequence[tuple[int, str]], *, batch_size: int = EMBED_BATCH
    ) -> int:
        """Embed and index these ``(id, content)`` rows of recallable messages (an
        import has them at hand: no need to read them back first); a message whose
        text changed meanwhile is left out. Returns how many were stored."""
        done = 0
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            batch_ids = [row[0] for row in batch]
            contents = [row[1] for row in batch]
            heads = [content[:EMBEDDED_CHARACTERS] for content in contents]
            vectors = np.asarray(await self.embedder.embed(heads), dtype=np.float32)
            stored = set(
                await self.store.run(
                    episodes.save_message_embeddings,
                    batch_ids,
                    contents,
                    vectors,
                    self.embedder.name,
                )
            )
            for message_id, vector in zip(batch_ids, vectors, strict=True):
                if message_id in stored:
                    self.index.upsert(message_id, vector)
            done += len(stored)
        return done

    def forget(self, message_ids: Iterable[int]) -> None:
        for message_id in message_ids:
            self.index.remove(int(message_id))
