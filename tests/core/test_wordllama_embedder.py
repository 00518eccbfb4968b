"""The offline embedder's speed paths (texts grouped by length, the fast tokenizer) give
exactly the vectors WordLlama's own way gives."""

from __future__ import annotations

import numpy as np

from tests.support.memory import shared_embedder

TEXTS = [
    *(("long answer about sourdough " * n).strip() for n in (40, 1, 200, 3, 90, 1)),
    "Ünïcödé café naïve — 日本語のテキスト 🚲",
    "",
]


def test_a_batch_of_mixed_lengths_embeds_each_text_as_it_would_alone():
    embedder = shared_embedder()
    together = embedder.embed_sync(TEXTS)
    alone = [embedder.embed_sync([text])[0] for text in TEXTS]
    assert all(np.array_equal(row, single) for row, single in zip(together, alone, strict=True))


def test_the_fast_tokenizer_gives_wordllamas_own_tokens():
    model = shared_embedder()._ensure_model()
    fast = model.tokenize(TEXTS)
    own = super(type(model), model).tokenize(TEXTS)  # WordLlama's encode_batch
    assert type(model).__name__ == "FastTokenizing"
    assert [(f.ids, f.attention_mask) for f in fast] == [(o.ids, o.attention_mask) for o in own]
