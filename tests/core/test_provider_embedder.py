"""ProviderEmbedder: the Embedder protocol over /v1/embeddings of the scripted server."""

from __future__ import annotations

import numpy as np
import pytest

from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.models.embeddings.provider_embedder import ProviderEmbedder
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run


def test_embeds_normalised_rows_and_learns_the_dimension(fake_openai):
    async def scenario():
        async with client_for(fake_openai) as client:
            embedder = ProviderEmbedder(client)
            assert isinstance(embedder, Embedder)
            assert embedder.dimensions == 0
            vectors = await embedder.embed(
                ["I prefer Python for backend development.", "", "What language for my backend?"]
            )
            return embedder, vectors

    embedder, vectors = run(scenario())
    assert embedder.name == "provider:fake-embedding"
    assert embedder.dimensions == 128
    assert vectors.shape == (3, 128) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0)
    assert not vectors[1].any()  # blank text: zeros, and not sent
    assert fake_openai.embedding_requests()[0].json["input"] == [
        "I prefer Python for backend development.",
        "What language for my backend?",
    ]
    assert float(vectors[0] @ vectors[2]) > 0.2


def test_batches_large_inputs(fake_openai):
    texts = [f"text number {i}" for i in range(5)]

    async def scenario():
        async with client_for(fake_openai) as client:
            return await ProviderEmbedder(client, batch_size=2).embed(texts)

    assert run(scenario()).shape == (5, 128)
    assert [len(r.json["input"]) for r in fake_openai.embedding_requests()] == [2, 2, 1]


def test_a_change_of_dimension_is_refused(fake_openai):
    fake_openai.script(
        Reply(embeddings=[[1.0, 0.0, 0.0]]), Reply(embeddings=[[1.0, 0.0]]), endpoint="embeddings"
    )

    async def scenario():
        async with client_for(fake_openai) as client:
            embedder = ProviderEmbedder(client)
            await embedder.embed(["a"])
            await embedder.embed(["b"])

    with pytest.raises(ModelReplyError, match="2 dimensions instead of 3"):
        run(scenario())


def test_a_wrong_number_of_rows_is_refused(fake_openai):
    fake_openai.script(Reply(embeddings=[[1.0, 0.0]]), endpoint="embeddings")

    async def scenario():
        async with client_for(fake_openai) as client:
            await ProviderEmbedder(client).embed(["a", "b"])

    with pytest.raises(ModelReplyError, match="1 embeddings for 2 texts"):
        run(scenario())


def test_a_text_longer_than_the_ceiling_is_sent_cut_to_it(fake_openai):
    from acai_desktop.core.models.embeddings.base import MAX_EMBED_CHARACTERS

    async def scenario():
        async with client_for(fake_openai) as client:
            return await ProviderEmbedder(client).embed(["x" * (4 * 1024 * 1024), "short"])

    assert run(scenario()).shape == (2, 128)
    sent = fake_openai.embedding_requests()[0].json["input"]
    assert [len(text) for text in sent] == [MAX_EMBED_CHARACTERS, len("short")]
