"""Scoring an answer against LoCoMo's gold answer: token F1, as LoCoMo's own evaluation.

Both texts are normalised (lower case, punctuation and the articles a/an/the removed,
whitespace collapsed), then F1 is taken over the bags of words. As in LoCoMo's
``evaluate_qa``: a multi-hop question (category 1) whose gold answer lists several
parts ("his sister Leila, 1:52") is scored part by part — each gold part against the
best-matching part of the prediction, averaged — and an open-domain answer (category 3)
is scored against the gold answer's first ``;``-separated alternative. Unlike LoCoMo's
script, words are not stemmed (no stemmer is bundled): "runs" and "run" differ.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

import numpy as np

MULTI_HOP = 1
OPEN_DOMAIN = 3
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation + "‘’“”")


def normalise_answer(text: str) -> str:
    text = str(text).lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    predicted = normalise_answer(prediction).split()
    wanted = normalise_answer(gold).split()
    if not predicted or not wanted:
        return float(predicted == wanted)
    common = sum((Counter(predicted) & Counter(wanted)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def _parts(text: str) -> list[str]:
    return [part for part in re.split(r"[,;]", text) if part.strip()] or [text]


def answer_f1(prediction: str, gold: str, category: int | None) -> float:
    """The F1 LoCoMo gives ``prediction`` for a question of ``category``."""
    if category == MULTI_HOP:
        predicted = _parts(prediction)
        return float(np.mean([max(token_f1(p, part) for p in predicted) for part in _parts(gold)]))
    if category == OPEN_DOMAIN:
        gold = gold.split(";")[0]
    return token_f1(prediction, gold)


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50 and p95 of ``values`` (0 for none), rounded to a tenth."""
    data = np.asarray(values or [0.0], dtype=float)
    return {
        "p50": round(float(np.percentile(data, 50)), 1),
        "p95": round(float(np.percentile(data, 95)), 1),
    }
