"""One ranking on the database thread: each tier's candidates scored, the best ``k``
of all of them, and their records."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, replace

import numpy as np

from acai_desktop.core.memory.retrieval import floor
from acai_desktop.core.memory.retrieval.candidates import (
    EpisodicQuery,
    ScoredCandidates,
    SemanticSide,
)
from acai_desktop.core.memory.retrieval.lexical import count_terms, message_matches
from acai_desktop.core.memory.retrieval.memory_tier import Fuse, memory_candidates, told_with
from acai_desktop.core.memory.retrieval.message_tier import is_named, message_candidates
from acai_desktop.core.memory.retrieval.results import (
    ASKER,
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
from acai_desktop.core.records.memories import MemoryKind, MemoryStatus
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.store import episodes, projects
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.connection import Database


@dataclass(frozen=True)
class RankRequest:
    """What one ranking is asked, besides the query vector."""

    terms: list[str]  # the words for BM25 (empty: the lexical side finds nothing)
    k: int
    excluded: frozenset[int]  # memories the caller already has
    conversation_id: int | None
    episodic: EpisodicQuery
    # What else it hides, read in the ranking's transaction (see hide_more): another
    # project's memories and messages (None: no scope, everything is seen)...
    scope: ProjectScope | None = None
    # ...and those written after this time (ISO, UTC: a regenerated answer's question).
    written_after: str | None = None
    # Below this many, an item passes the floor on strong evidence only (None: the
    # bar is the same for all ``k``; see floor.passing).
    sure_within: int | None = None

    @property
    def hides_more(self) -> bool:
        return self.scope is not None or self.written_after is not None


def hide_more(db: Database, request: RankRequest) -> RankRequest:
    """``request`` with the ids its ``scope`` and ``written_after`` hide added to the
    excluded ones (and neither left to read)."""
    memories, messages = set(request.excluded), set(request.episodic.excluded)
    if request.scope is not None:
        hidden = projects.out_of_scope(db, request.scope.project_id)
        memories.update(hidden.memory_ids)
        messages.update(hidden.message_ids)
    if request.written_after is not None:
        later_memories, later_messages = sql.ids_written_after(db, request.written_after)
        memories.update(later_memories)
        messages.update(later_messages)
    return replace(
        request,
        excluded=frozenset(memories),
        episodic=replace(request.episodic, excluded=frozenset(messages)),
        scope=None,
        written_after=None,
    )


def rank(
    db: Database,
    request: RankRequest,
    handoff: Future[SemanticSide],
    index: VectorIndex,
    message_index: VectorIndex | None,
    weights: RetrievalWeights,
    fuse: Fuse,
    hidden: Future[RankRequest] | None = None,
) -> list[Retrieved]:
    """Runs on the database thread: each tier's candidates scored (the query's vector
    and the semantic candidates come from the loop through ``handoff``, while the
    full-text queries run here), the best ``k`` of all of them, and their records.

    ``hidden``: where to hand the loop ``request`` with what it hides (:func:`hide_more`),
    read first; the loop's semantic side leaves those out too."""
    if hidden is not None:
        try:
            request = hide_more(db, request)
        except BaseException as error:
            hidden.set_exception(error)  # the loop waits for it before the handoff
            raise
        hidden.set_result(request)
    terms, episodic = request.terms, request.episodic
    if forgotten_sources := episodes.sources_of_forgotten(db):
        # Read here, not handed to the loop: the message tier drops them from every
        # candidate path, its meaning candidates included (message_candidates).
        episodic = replace(episodic, excluded=episodic.excluded | forgotten_sources)
    # One full-text query over messages serves both tiers: the messages themselves,
    # and the memories learned from them.
    match, message_rows = None, []
    with_messages = weights.episodic > 0 or weights.source_words
    # Each table's term counts (for the lexical sides and the floor), in one statement.
    tables = [episodes.MESSAGES_FTS, "memories_fts"] if with_messages else ["memories_fts"]
    counts: dict[str, list[int]] = count_terms(db, terms, weights, tables)
    if with_messages:
        match, message_rows = message_matches(db, terms, weights, episodic, counts)
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
        episodic.first_person,
        counts,
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
        request.k,
    )
    # Best first, by the score as reported (rounded); on equal scores memories before
    # messages, then the older item. Never by the order candidates were gathered in, nor
    # by digits below the rounding: recency moves those between two calls, so equal
    # scores would come back in another order from one search to the next.
    if request.sure_within is None:
        at_least = _contender_bar((memories.score, messages.score), request.k)
        ranked = sorted(
            _ranking_keys(0, memories, at_least) + _ranking_keys(1, messages, at_least)
        )[: request.k]
    else:
        # Read deep for a prompt: the best ``k`` of each tier, so that memories take none
        # of the messages' depth (the floor counts its first ``sure_within`` per tier too).
        ranked = sorted(
            sorted(_ranking_keys(0, memories, _contender_bar((memories.score,), request.k)))[
                : request.k
            ]
            + sorted(_ranking_keys(1, messages, _contender_bar((messages.score,), request.k)))[
                : request.k
            ]
        )
    tiers = (memories, messages)
    chosen = [[item_id for _, t, item_id, _ in ranked if t == tier] for tier in (0, 1)]
    records = sql.memories_by_id(db, chosen[0]) if chosen[0] else {}
    recalled = episodes.recalled_messages(db, chosen[1]) if chosen[1] else {}
    hits: list[Retrieved] = []
    placed: list[tuple[int, int]] = []  # (tier, position) of each hit
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
        if AUTHOR in reasons and not _named_by_name(candidates, position):
            reasons[reasons.index(AUTHOR)] = ASKER  # "I" named the user, not a name
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
        placed.append((tier, position))
    totals = (len(index), len(message_index or ()))
    judge_relevance(
        db, hits, placed, tiers, terms, episodic.names, weights, totals, counts, request.sure_within
    )
    return hits


# Farther than rounding to 6 digits can move a score (5e-7), with room to spare.
_ROUNDING_MARGIN = 2e-6


def _contender_bar(scores: tuple[np.ndarray, ...], k: int) -> float:
    """A score below which no candidate can be among the best ``k``: the ``k``-th best
    score of all, less what rounding can move a score. The ranking keys are then made
    for the few contenders only, not for every candidate (hundreds, in Python)."""
    every = np.concatenate(scores)
    if len(every) <= k:
        return -np.inf
    kth_best = float(np.partition(every, len(every) - k)[len(every) - k])
    if not np.isfinite(kth_best):
        return -np.inf  # a NaN among the best: every candidate takes part, as before
    return kth_best - _ROUNDING_MARGIN


def _ranking_keys(
    tier: int, candidates, at_least: float = -np.inf
) -> list[tuple[float, int, int, int]]:
    """(minus the reported score, tier, id, position) of each candidate of a tier whose
    score is at least ``at_least``."""
    positions = np.flatnonzero(candidates.score >= at_least)
    scores, ids = candidates.score[positions].tolist(), candidates.ids[positions].tolist()
    return [
        (-round(score, 6), tier, int(item_id), position)
        for position, score, item_id in zip(positions.tolist(), scores, ids, strict=True)
    ]


def judge_relevance(
    db: Database,
    hits: list[Retrieved],
    placed: list[tuple[int, int]],
    tiers: tuple[ScoredCandidates, ScoredCandidates],
    terms: list[str],
    names: frozenset[str],
    weights: RetrievalWeights,
    totals: tuple[int, int],
    counts: dict[str, list[int]],
    sure_within: int | None = None,
) -> None:
    """Sets each hit's ``relevant`` (the relevance floor, see :mod:`.floor`). The query
    words weigh their IDF in each tier's own full-text index (``counts``: the ones the
    lexical side already took, by table)."""
    word_weights_of = {}
    for tier, table in ((0, "memories_fts"), (1, episodes.MESSAGES_FTS)):
        if terms and any(t == tier for t, _ in placed):
            found = counts.get(table)
            if found is None:
                found = sql.document_counts(db, terms, weights.lexical_budget_documents, table)
            word_weights_of[tier] = floor.WordWeights(
                terms, floor.term_weights(found, totals[tier])
            )
    memory_ids = [hit.memory.id for hit in hits if isinstance(hit, RetrievedMemory)]
    authors = episodes.source_authors(db, memory_ids) if names and memory_ids else {}
    # A memory that holds a name the question names passes as naming someone only when
    # someone of that name speaks in this history ("Caroline"): a brand, a place or a
    # product ("Instagram", "Canon") is a word like any other, judged by the bars.
    by_name = tiers[1].named_by_name
    names_speakers = by_name is not None and bool(np.any(by_name))
    items = []
    for hit, (tier, position) in zip(hits, placed, strict=True):
        candidates = tiers[tier]
        standing = candidates.standing
        item_standing = float(standing[position]) if standing is not None else -np.inf
        word_weights = word_weights_of.get(tier) or floor.WordWeights(terms, np.zeros(len(terms)))
        # Told on a day the question names: part of the bar (floor.FloorItem.on_date).
        on_date = weights.floor_on_date if candidates.dated[position] else 0.0
        if isinstance(hit, RetrievedMemory):
            held = floor.stems_of(hit.memory.content)
            coverage = word_weights.coverage(held)
            # A memory about someone the question names ("Caroline attended…"), or
            # learned from what they said.
            naming = (names_speakers and floor.holds_any(held, names)) or bool(
                any(is_named(author, names) for author in authors.get(hit.memory.id, ()))
            )
            # A summary is as long and chatty as the messages it stands for: it shares
            # words and meaning by chance as they do, and is judged by their bars.
            long = hit.memory.kind == MemoryKind.SUMMARY
            items.append(
                floor.FloorItem(
                    coverage,
                    weights.floor_message_coverage if long else weights.floor_coverage,
                    item_standing,
                    weights.floor_message_meaning if long else weights.floor_meaning,
                    naming,
                    on_date=on_date,
                )
            )
            continue
        # Said by someone the question names: the name is a word they share.
        named = bool(candidates.named_by_name[position])
        coverage = word_weights.coverage(floor.stems_of(hit.message.content))
        items.append(
            floor.FloorItem(
                coverage,
                floor.words_bar(
                    item_standing,
                    weights.floor_message_coverage,
                    weights.floor_message_coverage_without_meaning,
                ),
                item_standing,
                weights.floor_message_meaning,
                named,
                hit.message.id,
                (int(candidates.before[position]), int(candidates.after[position])),
                on_date,
            )
        )
    for hit, item, ok in zip(hits, items, floor.passing(items, sure_within), strict=True):
        hit.relevant, hit.floor_item = ok, item


def _named_by_name(candidates: ScoredCandidates, position: int) -> bool:
    """Whether the question names the message's author by name ("What did Jon say"),
    not as "I" (the user's own messages, on a question about themselves)."""
    by_name = candidates.named_by_name
    return by_name is None or bool(by_name[position])
