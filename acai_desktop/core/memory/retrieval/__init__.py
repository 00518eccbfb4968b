"""Hybrid retrieval over two tiers: memories (facts, summaries, notes) and the
messages of past conversations (episodic recall), ranked together.

- :mod:`.retriever` — :class:`HybridRetriever`, one search from query to results;
- :mod:`.ranking` — the database thread's part: both tiers scored, the best ``k``;
- :mod:`.memory_tier` and :mod:`.message_tier` — each tier's candidates and scores;
- :mod:`.lexical` — the full-text (BM25) side; :mod:`.fusion` — BM25 and cosine as one;
- :mod:`.weights` — the plain weights, with what the evaluation measured for them;
- :mod:`.floor` — the relevance floor: which hits have the evidence to enter a prompt;
- :mod:`.results` — what a search returns, and the reasons.

Memories (measured on the LoCoMo dev half with observations as facts, see
``acai-desktop eval retrieval`` and the table in docs/benchmarks.md): BM25 scaled as s / (s + 5),
averaged with the raw cosine, then adjusted for importance, recency and pins.
Messages: see the ``episodic`` weights. The ideas measured and not adopted live in
:mod:`benchmarks.retrieval_variants`.
"""

from acai_desktop.core.memory.retrieval.results import (
    AUTHOR,
    LEXICAL,
    ON_DATE,
    PINNED,
    RECENT,
    SEMANTIC,
    THIS_CONVERSATION,
    Retrieved,
    RetrievedMemory,
    RetrievedMessage,
)
from acai_desktop.core.memory.retrieval.retriever import HybridRetriever, SearchQuery
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights

__all__ = [
    "AUTHOR",
    "LEXICAL",
    "ON_DATE",
    "PINNED",
    "RECENT",
    "SEMANTIC",
    "THIS_CONVERSATION",
    "HybridRetriever",
    "RetrievalWeights",
    "Retrieved",
    "RetrievedMemory",
    "RetrievedMessage",
    "SearchQuery",
]
