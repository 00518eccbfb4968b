"""The default embedder: WordLlama, loaded from the files inside its wheel.

WordLlama's own ``load`` looks for the tokenizer in a folder name that its wheel does
not use and then tries to download it; we open the packaged weights and tokenizer
directly, so it works with no network and inside a frozen bundle.
"""

from __future__ import annotations

import asyncio
import threading
from importlib import resources

import numpy as np

from acai_desktop.core.models.embeddings.base import clip_for_embedding, normalise_rows

CONFIG = "l2_supercat"
#: Up to this many characters per call are embedded on the calling thread (about 1 ms).
INLINE_CHARACTERS = 20_000
DIMENSIONS = 256
#: A group embedded at once: its count times its longest text at most this many
#: characters (at worst, a token per character, 32 MB of padded token vectors).
GROUP_CHARACTERS = 32_000


def _load_model():
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    package = resources.files("wordllama")
    tokenizer_file = package / "tokenizers" / f"{CONFIG}_tokenizer_config.json"
    weights_file = package / "weights" / f"{CONFIG}_{DIMENSIONS}.safetensors"
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    with safe_open(str(weights_file), framework="np", device="cpu") as weights:
        embedding = weights.get_tensor("embedding.weight")
    if not hasattr(tokenizer, "encode_batch_fast"):  # tokenizers before 0.20
        return WordLlamaInference(embedding, tokenizer)

    class FastTokenizing(WordLlamaInference):
        """Tokenizes with ``encode_batch_fast``: the same ids and attention mask without
        the character offsets WordLlama never reads. Tokenizing is most of the time of
        an embedding; this makes it about a third faster (an import of 50,000
        messages spends most of its time here)."""

        def tokenize(self, texts):
            batch = [texts] if isinstance(texts, str) else texts
            return self.tokenizer.encode_batch_fast(
                batch, is_pretokenized=False, add_special_tokens=False
            )

    return FastTokenizing(embedding, tokenizer)


def _groups(texts: list[str]) -> list[list[str]]:
    """``texts`` in order, in groups that WordLlama embeds in bounded memory: it pads a
    group to its longest text (a float32 row of 256 per token), so a group's count
    times its longest text stays under :data:`GROUP_CHARACTERS`."""
    groups: list[list[str]] = []
    group: list[str] = []
    longest = 0
    for text in texts:
        longest_with = max(longest, len(text), 1)
        if group and longest_with * (len(group) + 1) > GROUP_CHARACTERS:
            groups.append(group)
            group, longest_with = [], max(len(text), 1)
        group.append(text)
        longest = longest_with
    if group:
        groups.append(group)
    return groups


class WordLlamaEmbedder:
    """Static token embeddings, average-pooled: about 0.05 ms per short text on a CPU."""

    name = f"wordllama-{CONFIG}-{DIMENSIONS}"
    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    def _ensure_model(self):
        with self._lock:
            if self._model is None:
                self._model = _load_model()
            return self._model

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        model = self._ensure_model()
        clipped = clip_for_embedding(list(texts))
        # Shortest first: a group is padded to its longest text, so texts of like length
        # together waste little (a mixed batch of questions and long answers embeds
        # about twice as fast so); the rows go back to the caller's order at the end.
        order = sorted(range(len(clipped)), key=lambda i: len(clipped[i]))
        parts = [
            model.embed(group, norm=False, batch_size=len(group))
            for group in _groups([clipped[i] for i in order])
        ]
        vectors = np.empty((len(clipped), self.dimensions), dtype=np.float32)
        vectors[order] = np.concatenate(parts)
        return normalise_rows(vectors)

    def embeds_now(self, texts: list[str]) -> bool:
        # A query or a new memory takes microseconds: inline is cheaper than a thread
        # hop. Loading the model (a third of a second) and big batches (re-embedding
        # after an embedder switch, imports, evaluation) go to a worker thread so the
        # window never freezes.
        return self._model is not None and sum(len(t) for t in texts) <= INLINE_CHARACTERS

    async def embed(self, texts: list[str]) -> np.ndarray:
        if self.embeds_now(texts):
            return self.embed_sync(texts)
        return await asyncio.to_thread(self.embed_sync, texts)
