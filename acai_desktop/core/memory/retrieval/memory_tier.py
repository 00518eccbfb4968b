"""The memory tier: facts, summaries and notes, scored.

Each memory's importance, pin, recency and conversation come from the index (under
its lock) rather than from SQL; lexical and semantic evidence are fused (see
:mod:`fusion`), then adjusted for importance, recency and pins. A memory's words count
by the share of the query's weight they hold (:func:`held_weight`), not by BM25.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from acai_desktop.core.memory.retrieval import floor
from acai_desktop.core.memory.retrieval.candidates import (
    EpisodicQuery,
    ScoredCandidates,
    SemanticSide,
    age_days,
    no_candidates,
)
from acai_desktop.core.memory.retrieval.fusion import Evidence
from acai_desktop.core.memory.retrieval.lexical import NO_LEXICAL, lexical_candidates
from acai_desktop.core.memory.retrieval.message_tier import said_by_named
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.store import episodes
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.connection import Database

Fuse = Callable[[Evidence], np.ndarray]


def told_with(
    db: Database, rows: list[tuple], weights: RetrievalWeights, episodic: EpisodicQuery
) -> dict[int, float]:
    """For memories learned from messages the query matches (``rows``, see
    :func:`lexical.message_matches`): the best such message's BM25, scaled as a
    message's (see ``RetrievalWeights.source_words``)."""
    if not weights.source_words or not rows:
        return {}
    scale = weights.message_saturation
    speakers = episodic.speakers or episodic.names
    named = said_by_named([row[3] for row in rows], speakers) if speakers else None
    part_of = {
        row[0]: row[1] / (row[1] + scale)
        + (weights.author if named is not None and named[p] else 0.0)
        for p, row in enumerate(rows)
        if row[1] > 0
    }
    told: dict[int, float] = {}
    for memory_id, message_id in episodes.memories_from_messages(db, list(part_of)):
        told[memory_id] = max(told.get(memory_id, 0.0), part_of[message_id])
    return told


def held_weight(
    db: Database,
    terms: list[str],
    ids: np.ndarray,
    total: int,
    counts: dict[str, list[int]] | None,
    cap: int,
) -> np.ndarray:
    """The share of the query's informative weight that each candidate's own words hold
    (the ranking asks it of the candidates the full-text side found, and of those
    learned from a message it found). Each query word weighs its IDF among the ``total``
    memories, as the relevance floor weighs it (:class:`floor.WordWeights`, light
    stems); ``counts``: how many memories hold each word, as the lexical side counted
    them (up to ``cap``).

    In a profile of a few hundred short facts BM25 is poorly calibrated: one rare word
    ("done" in "What martial arts has John done?") scores as much as most of a question
    does, a short fact wins on its length, and "tourney" misses "tournament" (Porter
    stems). The share means the same whatever the collection and the query: a fact
    holding half the question's weight scores 0.5 (see ``RetrievalWeights.lexical``).
    """
    if not terms or not len(ids):
        return np.zeros(len(ids), np.float32)
    found = counts.get("memories_fts") if counts is not None else None
    if found is None:
        found = sql.document_counts(db, terms, cap, "memories_fts")
    weights = floor.WordWeights(terms, floor.term_weights(found, total))
    chosen = ids.tolist()
    texts = sql.memory_contents(db, chosen)
    held = [weights.coverage(floor.stems_of(texts.get(i, ""))) for i in chosen]
    return np.asarray(held, np.float32)


def memory_candidates(
    db: Database,
    terms: list[str],
    handoff: Future[SemanticSide],
    index: VectorIndex,
    excluded: frozenset[int],
    conversation_id: int | None,
    weights: RetrievalWeights,
    fuse: Fuse,
    periods: tuple[tuple[str, str], ...] = (),
    told: dict[int, float] | None = None,
    first_person: bool = False,
    counts: dict[str, list[int]] | None = None,
) -> ScoredCandidates:
    """Lexical candidates, then (once the loop hands over the semantic ones) fusion
    with the facts from the index. A memory learned from a message written on a day
    the query names gets ``on_date`` (and is a candidate), as a message does; one
    learned from a message the query's words match gets ``source_words`` (``told``);
    every one gets ``asker`` when the query is in the first person.

    Candidate sets are small (two times ``weights.candidates`` at most); the scoring
    is done once over aligned numpy arrays. Their order — lexical ones best BM25 first,
    then the semantic-only ones by id — is the one ties keep.
    """
    lexical = (
        lexical_candidates(db, terms, weights, index.membership(), counts, len(excluded))
        if terms
        else NO_LEXICAL
    )
    side = handoff.result()
    semantic, vector = side.memories, side.vector
    # Plain Python for the bookkeeping: with a hundred candidates at most, numpy's
    # per-call overhead (isin, searchsorted) cost more than the work.
    lexical_ids, bm25 = list(lexical.ids), list(lexical.bm25)
    if excluded:
        kept = [p for p, memory_id in enumerate(lexical_ids) if memory_id not in excluded]
        lexical_ids, bm25 = [lexical_ids[p] for p in kept], [bm25[p] for p in kept]
    cosine_of = dict(zip(semantic.ids.tolist(), semantic.scores.tolist(), strict=True))
    lexical_set = set(lexical_ids)
    id_list = lexical_ids + sorted(i for i in cosine_of if i not in lexical_set)
    dated_ids: set[int] = set()
    if periods and weights.on_date:
        dated_ids = {
            i
            for i in episodes.memories_told_in_periods(db, periods, weights.dated_candidates)
            if i not in excluded
        }
        listed = set(id_list)
        id_list += sorted(i for i in dated_ids if i not in listed)
    told = {i: v for i, v in (told or {}).items() if i not in excluded}
    if told:
        listed = set(id_list)
        id_list += sorted(i for i in told if i not in listed)
    count = len(id_list)
    if not count:
        return no_candidates()
    ids = np.array(id_list, np.int64)
    lexical_raw = np.zeros(count, np.float32)
    lexical_raw[: len(bm25)] = bm25
    is_lexical = np.zeros(count, bool)
    is_lexical[: len(bm25)] = True
    semantic_positions = [p for p, i in enumerate(id_list) if i in cosine_of]
    in_semantic = np.zeros(count, bool)
    in_semantic[semantic_positions] = True

    found = index.lookup(id_list, vector, semantic.every)
    age = age_days(found.touched_ms)
    importance, pinned = found.importance, found.pinned
    age, conversation = age.astype(np.float32), found.conversation_id
    # Facts from the database for a candidate the index holds without facts, and for
    # a lexical one it doesn't hold (no current vector).
    alive = found.known
    if not alive.all():
        fetched = dict(lexical.rows)
        unknown = ids[found.indexed & ~found.known]
        if len(unknown):
            fetched.update((row[0], row) for row in sql.candidate_rows(db, unknown))
        alive = alive.copy()
        for position in np.flatnonzero(~found.known).tolist():
            row = fetched.get(id_list[position])
            if row is None:
                # Neither in the index nor active in the database: it stopped being
                # active since the candidates were gathered.
                continue
            alive[position] = True
            importance[position] = row[1]
            pinned[position] = bool(row[2])
            age[position] = row[3] or 0.0
            conversation[position] = row[4]
            blob = row[5]
            if (
                is_lexical[position]
                and not found.indexed[position]
                and vector is not None
                and blob is not None
                and len(blob) == vector.nbytes
            ):
                found.cosine[position] = float(np.frombuffer(blob, dtype=np.float32) @ vector)

    # Cosines: the semantic side's, else the index's (or the stored embedding's).
    cosine = found.cosine
    cosine[semantic_positions] = [cosine_of[id_list[p]] for p in semantic_positions]

    dated = (
        np.array([i in dated_ids for i in id_list], bool) if dated_ids else np.zeros(count, bool)
    )
    source_part = (
        np.array([told.get(i, 0.0) for i in id_list], np.float32)
        if told
        else np.zeros(count, np.float32)
    )
    if not alive.all():
        columns = (ids, lexical_raw, is_lexical, cosine, in_semantic, dated, source_part)
        ids, lexical_raw, is_lexical, cosine, in_semantic, dated, source_part = (
            c[alive] for c in columns
        )
        columns = (importance, pinned, age, conversation)
        importance, pinned, age, conversation = (c[alive] for c in columns)
        count = len(ids)
        if not count:
            return no_candidates()

    # The words' share is read for the candidates the words found, or the message the
    # memory was learned from: one found by meaning alone holds none of the words the
    # full-text side ranks (or too few to be among its best), as BM25 gave it 0 before.
    # Reading every candidate's text cost 0.3 ms more a search for 0.003 of recall.
    coverage = np.zeros(count, np.float32)
    worded = np.flatnonzero(is_lexical | (source_part > 0))
    coverage[worded] = held_weight(
        db, terms, ids[worded], len(index), counts, weights.lexical_budget_documents
    )
    fused = fuse(Evidence(lexical_raw, is_lexical, cosine, in_semantic, semantic, coverage))
    recency = 0.5 ** (age / weights.recency_half_life_days)
    same_conversation = (
        conversation == conversation_id if conversation_id is not None else np.zeros(count, bool)
    )
    score = fused * (1.0 + weights.importance * (importance - 0.5))
    score = score + weights.recency * recency
    score = score + weights.pinned * pinned
    score = score + weights.this_conversation * same_conversation
    score = score + weights.on_date * dated
    score = score + weights.source_words * source_part
    # Memories are about the user: a question in the first person ("what language do I
    # prefer?") lifts them as it lifts the user's own messages (see message_tier), so
    # a fact still wins a tie with the message it was learned from.
    score = score + weights.asker * first_person
    # "Similar meaning" when the cosine is in the upper half of the semantic
    # candidates' range, or when it is the only evidence.
    semantic_bar = semantic.floor + 0.5 * (float(cosine.max()) - semantic.floor)
    semantic_reason = in_semantic & ((cosine >= semantic_bar) | ~is_lexical)
    return ScoredCandidates(
        ids,
        score.astype(np.float32),
        is_lexical | (source_part > 0),
        semantic_reason,
        pinned.astype(bool),
        (recency >= 0.5) if weights.recency else np.zeros(count, bool),
        same_conversation,
        np.zeros(count, bool),
        dated,
        semantic.floor_standing(cosine) if len(semantic.ids) else np.full(count, -np.inf),
    )
