"""Embeddings from the provider's /v1/embeddings, with the embedding role's model.

Chosen in Settings (embedding source "provider") instead of the offline WordLlama default.
The dimension is whatever the model returns, learned on the first call; a later reply of
another size is refused, because vectors of two sizes cannot share one index.
"""

from __future__ import annotations

import numpy as np

from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.embeddings.base import clip_for_embedding, normalise_rows
from acai_desktop.core.models.presets import ModelRole


class ProviderEmbedder:
    def __init__(self, client: ModelClient, *, batch_size: int = 128) -> None:
        self._client = client
        self._batch_size = batch_size
        self.model = client.model_for(ModelRole.EMBEDDING)
        #: Stored beside every vector, so switching models is detectable.
        self.name = f"provider:{self.model}"
        #: 0 until the first call tells.
        self.dimensions = 0

    def embeds_now(self, texts: list[str]) -> bool:
        return False  # every call goes over the network

    async def embed(self, texts: list[str]) -> np.ndarray:
        # Blank texts are not sent (OpenAI refuses empty input); they embed to zeros, as
        # with WordLlama.
        texts = clip_for_embedding(texts)
        sent = [index for index, text in enumerate(texts) if text.strip()]
        if not sent:
            return np.zeros((len(texts), self.dimensions), dtype=np.float32)
        parts = []
        for start in range(0, len(sent), self._batch_size):
            batch = [texts[index] for index in sent[start : start + self._batch_size]]
            parts.append(await self._client.embed(batch))
        vectors = np.concatenate(parts, axis=0)
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise ModelReplyError(f"The embedding model {self.model!r} returned empty vectors.")
        if self.dimensions and vectors.shape[1] != self.dimensions:
            raise ModelReplyError(
                f"The embedding model {self.model!r} returned {vectors.shape[1]} dimensions "
                f"instead of {self.dimensions}. Re-embed the memories after changing models."
            )
        self.dimensions = int(vectors.shape[1])
        result = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        result[sent] = normalise_rows(vectors)
        return result
