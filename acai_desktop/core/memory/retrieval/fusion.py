"""Lexical and semantic evidence of the memory candidates combined into one score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from acai_desktop.core.memory.retrieval.candidates import SemanticCandidates
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights


@dataclass
class Evidence:
    """Aligned arrays over the memory candidates (see memory_tier.memory_candidates)."""

    bm25: np.ndarray  # raw BM25, 0 where the words did not match
    is_lexical: np.ndarray  # bool: a lexical candidate
    cosine: np.ndarray  # the query's cosine with each candidate
    in_semantic: np.ndarray  # bool: a semantic candidate
    semantic: SemanticCandidates  # the semantic side (its floor, for rescaling)
    # Memories: the share of the query's informative weight each candidate's own words
    # hold (memory_tier.held_weight), the lexical evidence in place of BM25; None (document
    # passages): BM25 scaled as s / (s + c).
    coverage: np.ndarray | None = None


def fuse(weights: RetrievalWeights, evidence: Evidence) -> np.ndarray:
    """One score in [0, 1]: the words' evidence averaged with the raw cosine (on real
    conversations the raw cosine beat the cosine rescaled between the candidates' worst
    and best by 0.01-0.014). The words' evidence is the share of the query's weight the
    candidate holds when the evidence has it (memories: see ``RetrievalWeights.lexical``),
    else BM25 scaled as s / (s + c), which keeps a weak best match weak."""
    if evidence.coverage is not None:
        lexical_part = evidence.coverage
    else:
        bm25 = evidence.bm25
        lexical_part = bm25 / (bm25 + weights.lexical_saturation)
    semantic_part = np.clip(evidence.cosine, 0.0, 1.0)
    fused = weights.lexical * lexical_part + weights.semantic * semantic_part
    return fused / max(weights.lexical + weights.semantic, 1e-9)
