"""One ranking on the database thread: each tier's candidates scored, the best ``k``
of all of them, and their records."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

from sqlite_utils import Database

from acai_desktop.core.memory.retrieval.candidates import EpisodicQuery, SemanticSide
from acai_desktop.core.memory.retrieval.lexical import message_matches
from acai_desktop.core.memory.retrieval.memory_tier import Fuse, memory_candidates, told_with
from acai_desktop.core.memory.retrieval.message_tier import message_candidates
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
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.records import MemoryStatus
from acai_desktop.core.store import episodes
from acai_desktop.core.store import search as sql


@dataclass(frozen=True)
class RankRequest:
    """What one ranking is asked, besides the query vector."""

    terms: list[str]  # the words for BM25 (empty: the lexical side finds nothing)
    k: int
    excluded: frozenset[int]  # memories the caller already has
    conversation_id: int | None
    episodic: EpisodicQuery


def rank(
    db: Database,
    request: RankRequest,
    handoff: Future[SemanticSide],
    index: VectorIndex,
    message_index: VectorIndex | None,
    weights: RetrievalWeights,
    fuse: Fuse,
) -> list[Retrieved]:
    """Runs on the database thread: each tier's candidates scored (the query's vector
    and the semantic candidates come from the loop through ``handoff``, while the
    full-text queries run here), the best ``k`` of all of them, and their records."""
    terms, episodic = request.terms, request.episodic
    # One full-text query over messages serves both tiers: the messages themselves,
    # and the memories learned from them.
    match, message_rows = None, []
    if weights.episodic > 0 or weights.source_words:
        match, message_rows = message_matches(db, terms, weights, episodic)
    memories = memory_candidates(
        db,
        terms,
        handoff,
        index,
        request.excluded,
        request.conversation_id,
        weights,
        fuse,
        episodic.periods,
        told_with(db, message_rows, weights, episodic),
    )
    side = handoff.result()
    messages = message_candidates(
        db,
        (match, list(message_rows)),
        side.messages,
        side.vector,
        message_index,
        request.conversation_id,
        weights,
        episodic,
    )
    # Best first, by the score as reported (rounded); on equal scores memories before
    # messages, then the older item. Never by the order candidates were gathered in, nor
    # by digits below the rounding: recency moves those between two calls, so equal
    # scores would come back in another order from one search to the next.
    ranked = sorted(_ranking_keys(0, memories) + _ranking_keys(1, messages))[: request.k]
    tiers = (memories, messages)
    chosen = [[item_id for _, t, item_id, _ in ranked if t == tier] for tier in (0, 1)]
    records = sql.memories_by_id(db, chosen[0]) if chosen[0] else {}
    recalled = episodes.recalled_messages(db, chosen[1]) if chosen[1] else {}
    hits: list[Retrieved] = []
    for _, tier, _, position in ranked:
        candidates = tiers[tier]
        item_id = int(candidates.ids[position])
        reasons = [
            reason
            for reason, flags in (
                (LEXICAL, candidates.lexical),
                (SEMANTIC, candidates.semantic),
                (PINNED, candidates.pinned),
                (RECENT, candidates.recent),
                (THIS_CONVERSATION, candidates.same_conversation),
                (AUTHOR, candidates.named),
                (ON_DATE, candidates.dated),
            )
            if flags[position]
        ]
        score = round(float(candidates.score[position]), 6)
        if tier == 0:
            memory = records.get(item_id)
            if memory is None or memory.status != MemoryStatus.ACTIVE:
                continue  # changed while we ranked
            hits.append(RetrievedMemory(memory, len(hits) + 1, score, reasons))
        else:
            message = recalled.get(item_id)
            if message is None:
                continue  # deleted (or its chat) while we ranked
            hits.append(RetrievedMessage(message, len(hits) + 1, score, reasons))
    return hits


def _ranking_keys(tier: int, candidates) -> list[tuple[float, int, int, int]]:
    """(minus the reported score, tier, id, position) of each candidate of a tier."""
    scores, ids = candidates.score.tolist(), candidates.ids.tolist()
    return [
        (-round(score, 6), tier, int(item_id), position)
        for position, (score, item_id) in enumerate(zip(scores, ids, strict=True))
    ]
