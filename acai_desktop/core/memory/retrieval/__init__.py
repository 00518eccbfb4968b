"""Hybrid retrieval over two tiers: memories (facts, summaries, notes) and the
messages of past conversations (episodic recall), ranked together.

One search is: embed the query (microseconds with WordLlama); queue the ranking on
the database thread, which starts with the BM25 queries while the event loop computes
the matrix-vector products over the in-memory :class:`VectorIndex` of memories and
that of messages (the loop is the only thread that changes them) and hands the
semantic candidates over; the database thread then fuses each tier with numpy,
taking each memory's importance, pin, recency and conversation from the index (under
its lock) rather than from SQL, and loads the records of the top ``k`` only. One hop.

Memories (measured on the LoCoMo dev half with observations as facts, see ``acai-desktop
eval retrieval`` and the README's table): BM25 scaled as s / (s + 5), which keeps a weak
best match weak, averaged with the raw cosine (on real conversations the raw cosine
beat the cosine rescaled between the candidates' worst and best by 0.01-0.014), then
adjusted for importance, recency and pins. Reciprocal rank fusion is available for
comparison (``fusion="rrf"``). Messages: see the ``episodic`` weights below.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

import numpy as np
from sqlite_utils import Database

from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.memory.query import (
    ProcessedQuery,
    fts_match_expression,
    normalise,
    process_query,
)
from acai_desktop.core.memory.query import tokenize as tokenize_query
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.records import MESSAGE_TIER, MemoryItem, MemoryStatus, RecalledMessage
from acai_desktop.core.store import episodes
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.database import Store

LEXICAL = "lexical"
SEMANTIC = "semantic"
PINNED = "pinned"
RECENT = "recent"
THIS_CONVERSATION = "this_conversation"
AUTHOR = "author"  # a recalled message said by someone the question names
ON_DATE = "on_date"  # a recalled message written on a day (or in a month) the question names


@dataclass(frozen=True)
class RetrievalWeights:
    """Knobs of the ranking; the defaults are what the evaluation numbers supported."""

    fusion: str = "normalised"  # "normalised" | "rrf" | "lexical" | "semantic"
    lexical: float = 0.5
    semantic: float = 0.5
    rrf_k: float = 60.0
    candidates: int = 50  # per side, before fusion
    # BM25 scores every memory that holds any query word (about 2 µs each), so a word
    # found in thousands of memories makes the search slow while adding almost nothing
    # to the ranking (its IDF is near zero). The query keeps its words rarest first
    # while together they occur in at most this many memories (see _lexical_match).
    lexical_budget_documents: int = 400
    # score *= 1 + importance * (memory.importance - 0.5)
    importance: float = 0.1
    # score += recency * 0.5 ** (age_days / recency_half_life_days)
    recency: float = 0.03
    recency_half_life_days: float = 30.0
    pinned: float = 0.1
    this_conversation: float = 0.02
    stop_words: bool = True
    # What is embedded for the semantic side: the question as typed ("raw") or only its
    # informative words ("terms"), which keeps "how", "did" and the like from pulling
    # towards small talk that shares them.
    semantic_query: str = "terms"
    # BM25 into [0, 1]: divided by the query's best score ("max"), or s / (s + c)
    # ("saturate"), which keeps a weak best match weak.
    lexical_norm: str = "saturate"
    lexical_saturation: float = 5.0
    # Cosine into [0, 1]: between the semantic cut-off and the best ("minmax"), or the
    # cosine itself ("raw").
    semantic_norm: str = "raw"
    # Pseudo-relevance feedback: a second semantic pass with the query vector moved
    # towards the first pass's best hits. Off by default (see the evaluation note).
    prf_docs: int = 0
    prf_weight: float = 0.5
    # Episodic recall (messages of past conversations, see store/episodes.py). All
    # measured on the LoCoMo dev half (turns as messages), recall_any@10:
    # - a message's BM25 weighs its own words 1 and those of the two turns before and
    #   after it ``message_context`` (0.5): 0.648 on the message alone, 0.808 with the
    #   context at 0.5 (0.3: 0.805, 1.0: 0.778); with the author boost a window of ±2
    #   turns scored 0.830, ±1 0.812, ±3 0.822 (the window is in migration m002);
    # - scaled as s / (s + message_saturation) so a weak best match stays weak (dividing
    #   by the query's best message measured the same, but would put any message above
    #   the facts);
    # - ``author`` when the question names who said it ("What did Caroline paint?"):
    #   +0.02;
    # - ``on_date`` when it was written on a day or in a month the question names
    #   ("What did Nate cook on 9 November, 2022?"); such messages are candidates even
    #   with no word in common: +0.015;
    # - ``message_semantic``: the cosine with the message's own vector (scaled between
    #   the semantic candidates' worst and best) — it finds paraphrases with no word in
    #   common; -0.002 on LoCoMo, where the questions reuse the turns' words;
    # - the whole message score times ``episodic`` (0.6), so that a fact, distilled
    #   and embedded, wins a tie with a message saying the same; with one tier (the
    #   benchmark) the factor changes nothing.
    episodic: float = 0.6
    message_context: float = 0.5
    message_candidates: int = 100
    author: float = 0.2
    on_date: float = 0.5
    dated_candidates: int = 300
    message_semantic: float = 0.2
    # Messages found by meaning only are few in the top ten (their words did not
    # match): 25 candidates measured as 50 (turns +0.001) at half the SQL.
    message_semantic_candidates: int = 25
    message_saturation: float | None = 5.0
    # A memory learned from a message that matches the query (memory_sources) gets
    # this times that message's scaled BM25 (its neighbours' words included, plus
    # ``author`` when the query names who said it): "I've been writing backend
    # services in Python for years" finds the fact it taught. LoCoMo dev, observations
    # as facts learned from their turns: 0.693 -> 0.741 (0.5: 0.737, 1.5: 0.746).
    source_words: float = 1.0


@dataclass
class RetrievedMemory:
    memory: MemoryItem
    rank: int  # 1-based
    score: float
    reasons: list[str] = field(default_factory=list)

    @property
    def tier(self) -> str:
        """ "fact", "summary" or "note" (the memory's kind); see RetrievedMessage."""
        return self.memory.kind.value


@dataclass
class RetrievedMessage:
    """A message of a past conversation, recalled (the ``message`` tier)."""

    message: RecalledMessage
    rank: int  # 1-based, among every tier
    score: float
    reasons: list[str] = field(default_factory=list)

    tier = MESSAGE_TIER


Retrieved = RetrievedMemory | RetrievedMessage


@dataclass
class _Semantic:
    ids: np.ndarray
    scores: np.ndarray
    floor: float  # the cosine of the last semantic candidate (normalisation's zero)


@dataclass
class _Lexical:
    ids: list[int]  # best BM25 first
    bm25: list[float]
    # Fusion inputs and stored embedding of the candidates that are not in the index
    # (see sql.candidate_rows); the others' come from the index.
    rows: dict[int, tuple]


_NO_LEXICAL = _Lexical([], [], {})


class HybridRetriever:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        index: VectorIndex,
        *,
        weights: RetrievalWeights | None = None,
        messages: VectorIndex | None = None,
    ) -> None:
        """``messages``: the vectors of recallable messages (the memory service's
        ``episodes.index``); without it messages are found by their words only."""
        self.store = store
        self.embedder = embedder
        self.index = index
        self.messages = messages
        self.weights = weights or RetrievalWeights()

    async def search(
        self,
        query: str,
        k: int = 10,
        *,
        exclude_ids: Iterable[int] = (),
        conversation_id: int | None = None,
        exclude_message_ids: Iterable[int] = (),
    ) -> list[Retrieved]:
        """The ``k`` best active memories and recalled messages for ``query``, best first.

        ``exclude_ids``: memories the caller already has (the conversation's own
        summaries, pinned ones it adds anyway). ``exclude_message_ids``: messages it
        already has (the recent turns of the conversation it answers in).
        ``conversation_id``: memories that came from this conversation get a small boost.
        """
        if k <= 0:
            return []
        weights = self.weights
        processed = self._process(query)
        embedded = query
        if weights.semantic_query == "terms" and processed.terms:
            embedded = " ".join(processed.terms)
        vector = (await self.embedder.embed([embedded]))[0] if query.strip() else None
        excluded = frozenset(int(i) for i in exclude_ids)
        episodic = _EpisodicQuery(
            frozenset(int(i) for i in exclude_message_ids),
            frozenset(map(normalise, processed.names)),
            tuple(processed.periods),
        )
        terms = processed.terms if weights.fusion != "semantic" else []
        hits = await self._round(terms, vector, excluded, conversation_id, k, episodic)
        if weights.prf_docs and vector is not None and hits:
            memory_ids = [h.memory.id for h in hits if isinstance(h, RetrievedMemory)]
            vector = self._feedback_vector(vector, memory_ids[: weights.prf_docs])
            hits = await self._round(terms, vector, excluded, conversation_id, k, episodic)
        return hits

    async def _round(
        self,
        terms: list[str],
        vector: np.ndarray | None,
        excluded: frozenset[int],
        conversation_id: int | None,
        k: int,
        episodic: _EpisodicQuery,
    ) -> list[Retrieved]:
        """One hop to the database thread, which runs the full-text queries while the
        loop computes the cosine product (at 100,000 memories each takes
        milliseconds), then takes the semantic candidates, fuses, and loads the top
        ``k``'s records."""
        handoff: Future[tuple[_Semantic, _Semantic]] = Future()
        job = self.store.submit(
            _rank,
            terms,
            handoff,
            vector,
            self.index,
            self.messages,
            excluded,
            conversation_id,
            k,
            self.weights,
            episodic,
        )
        # Nothing may be awaited before the handoff is settled: the database thread
        # is waiting for it.
        try:
            handoff.set_result(
                (
                    self._semantic(self.index, vector, excluded, self.weights.candidates),
                    self._semantic(
                        self.messages,
                        vector,
                        episodic.excluded,
                        self.weights.message_semantic_candidates,
                    ),
                )
            )
        except BaseException as error:
            handoff.set_exception(error)
        return await job

    async def pinned(self) -> list[MemoryItem]:
        """Every active pinned memory: the context builder always includes them."""
        return await self.store.run(sql.pinned_memories)

    def _process(self, query: str) -> ProcessedQuery:
        if self.weights.stop_words:
            return process_query(query)
        terms = list(dict.fromkeys(tokenize_query(query)))
        return ProcessedQuery(text=query, terms=terms, fts=fts_match_expression(terms))

    def _semantic(
        self,
        index: VectorIndex | None,
        vector: np.ndarray | None,
        excluded: frozenset[int],
        candidates: int,
    ) -> _Semantic:
        empty = _Semantic(np.zeros(0, np.int64), np.zeros(0, np.float32), 0.0)
        if vector is None or index is None or not len(index) or self.weights.fusion == "lexical":
            return empty
        ids, scores = index.similarities(vector)
        if excluded:
            scores = np.where(np.isin(ids, list(excluded)), -np.inf, scores)
        count = min(candidates, len(scores))
        if count < len(scores):
            top = np.argpartition(-scores, count - 1)[:count]
        else:
            top = np.arange(len(scores))
        top = top[np.isfinite(scores[top])]
        top = top[np.argsort(-scores[top])]
        top_scores = scores[top].astype(np.float32)
        floor = float(top_scores[-1]) if len(top_scores) else 0.0
        # Copies: the index may change while the lexical query is awaited.
        return _Semantic(ids[top].copy(), top_scores, floor)

    def _feedback_vector(self, vector: np.ndarray, ids: list[int]) -> np.ndarray:
        rows = [self.index.vector(i) for i in ids if i in self.index]
        if not rows:
            return vector
        moved = vector + self.weights.prf_weight * np.mean(rows, axis=0)
        norm = float(np.linalg.norm(moved))
        return (moved / norm).astype(np.float32) if norm else vector


def _age_days(touched_ms: np.ndarray) -> np.ndarray:
    """Days since ``touched_ms``, computed as SQLite's
    ``max(julianday('now') - julianday(touched), 0)`` is (Julian days from whole
    milliseconds), so the ranking is the one the SQL gave, to the last bit."""
    now_ms = time.time_ns() // 1_000_000
    now = (now_ms + sql.JULIAN_EPOCH_MS) / 86_400_000.0
    age = np.maximum(now - (touched_ms + sql.JULIAN_EPOCH_MS) / 86_400_000.0, 0.0)
    return np.where(np.isnan(touched_ms), 0.0, age).astype(np.float32)


def _scale(scores: np.ndarray, floor: float, top: float) -> np.ndarray:
    if top <= floor:
        return np.where(scores >= top, 1.0, 0.0).astype(np.float32)
    return np.clip((scores - floor) / (top - floor), 0.0, 1.0).astype(np.float32)


def _lexical(
    db: Database, terms: list[str], weights: RetrievalWeights, indexed: Callable[[int], bool]
) -> _Lexical:
    """Runs on the database thread: the BM25 candidates of ``terms``.

    ``indexed`` is the index's membership test, a single dict lookup (atomic under the
    GIL) while the loop may be changing the index; a memory it reports is active, and
    :meth:`HybridRetriever._rank` checks again on the loop.
    """
    match = _lexical_match(db, terms, weights.lexical_budget_documents)
    if not match:
        return _NO_LEXICAL
    return _Lexical(*sql.lexical_hits(db, match, weights.candidates, indexed))


def _lexical_match(
    db: Database, terms: list[str], budget: int, table: str = "memories_fts"
) -> str | None:
    """The FTS5 expression for ``terms``, kept cheap (see ``lexical_budget_documents``).

    Rarest words first, OR-ed, while together they occur in at most ``budget``
    memories. When even the rarest word is commoner than that, the two rarest are
    AND-ed instead: memories holding both are few and are the ones BM25 would have
    put on top anyway; the semantic side still sees everything.
    """
    if len(terms) < 2:
        return fts_match_expression(terms)
    counts = sql.document_counts(db, terms, budget, table)
    present = sorted((count, position) for position, count in enumerate(counts) if count)
    if not present:
        return None
    kept, total = [], 0
    for count, position in present:
        if total + count > budget:
            break
        kept.append(position)
        total += count
    if kept:
        return fts_match_expression([terms[position] for position in sorted(kept)])
    if len(present) == 1:
        return fts_match_expression([terms[present[0][1]]])
    rarest = sorted(position for _, position in present[:2])
    return fts_match_expression([terms[position] for position in rarest], conjunction="AND")


@dataclass(frozen=True)
class _EpisodicQuery:
    """What the message tier needs of a search besides its words."""

    excluded: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()  # normalised capitalised words of the query
    periods: tuple[tuple[str, str], ...] = ()  # days and months it names


@dataclass
class _Candidates:
    """One tier's candidates, aligned arrays, scored; the flags say why (reasons)."""

    ids: np.ndarray
    score: np.ndarray
    lexical: np.ndarray  # bool
    semantic: np.ndarray  # bool: a semantic reason (see _memory_candidates)
    pinned: np.ndarray
    recent: np.ndarray
    same_conversation: np.ndarray
    named: np.ndarray  # bool: said by someone the query names (messages)
    dated: np.ndarray  # bool: written on a day the query names (messages)


def _rank(
    db: Database,
    terms: list[str],
    handoff: Future[tuple[_Semantic, _Semantic]],
    vector: np.ndarray | None,
    index: VectorIndex,
    message_index: VectorIndex | None,
    excluded: frozenset[int],
    conversation_id: int | None,
    k: int,
    weights: RetrievalWeights,
    episodic: _EpisodicQuery = _EpisodicQuery(),
) -> list[Retrieved]:
    """Runs on the database thread: each tier's candidates scored, the best ``k`` of
    all of them, and their records."""
    # One full-text query over messages serves both tiers: the messages themselves,
    # and the memories learned from them.
    match, message_rows = None, []
    if weights.episodic > 0 or weights.source_words:
        match, message_rows = _message_lexical(db, terms, weights, episodic)
    memories = _memory_candidates(
        db,
        terms,
        handoff,
        vector,
        index,
        excluded,
        conversation_id,
        weights,
        episodic.periods,
        _told_with(db, message_rows, weights, episodic),
    )
    messages = _message_candidates(
        db,
        (match, list(message_rows)),
        handoff.result()[1],
        vector,
        message_index,
        conversation_id,
        weights,
        episodic,
    )
    # Best first; on equal scores memories before messages, each tier in its own order.
    ranked = sorted(
        [(-s, 0, p) for p, s in enumerate(memories.score.tolist())]
        + [(-s, 1, p) for p, s in enumerate(messages.score.tolist())]
    )[:k]
    tiers = (memories, messages)
    chosen = [[int(tiers[t].ids[p]) for _, t, p in ranked if t == tier] for tier in (0, 1)]
    records = sql.memories_by_id(db, chosen[0]) if chosen[0] else {}
    recalled = episodes.recalled_messages(db, chosen[1]) if chosen[1] else {}
    hits: list[Retrieved] = []
    for _, tier, position in ranked:
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


def _no_candidates() -> _Candidates:
    empty = np.zeros(0, bool)
    return _Candidates(np.zeros(0, np.int64), np.zeros(0, np.float32), *[empty] * 7)


def _message_lexical(
    db: Database, terms: list[str], weights: RetrievalWeights, episodic: _EpisodicQuery
) -> tuple[str | None, list[tuple]]:
    """The message tier's FTS expression and its best BM25 rows (see
    :func:`episodes.message_hits`), the excluded messages left out."""
    if not terms:
        return None, []
    match = _lexical_match(db, terms, weights.lexical_budget_documents, episodes.MESSAGES_FTS)
    if not match:
        return None, []
    rows = episodes.message_hits(
        db, match, weights.message_candidates + len(episodic.excluded), weights.message_context
    )
    rows = [row for row in rows if row[0] not in episodic.excluded]
    return match, rows[: weights.message_candidates]


def _told_with(
    db: Database, rows: list[tuple], weights: RetrievalWeights, episodic: _EpisodicQuery
) -> dict[int, float]:
    """For memories learned from messages the query matches (``rows``, see
    :func:`_message_lexical`): the best such message's BM25, scaled as a message's
    (see ``RetrievalWeights.source_words``)."""
    if not weights.source_words or not rows:
        return {}
    scale = weights.message_saturation or weights.lexical_saturation
    named = _named([row[3] for row in rows], episodic.names) if episodic.names else None
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


def _message_candidates(
    db: Database,
    lexical: tuple[str | None, list[tuple]],
    semantic: _Semantic,
    vector: np.ndarray | None,
    message_index: VectorIndex | None,
    conversation_id: int | None,
    weights: RetrievalWeights,
    episodic: _EpisodicQuery,
) -> _Candidates:
    """Recalled messages: BM25 over each message and its neighbours' words (see
    ``RetrievalWeights.episodic``), with the same recency and conversation adjustments
    as memories, plus ``author`` when the query names who said it."""
    if weights.episodic <= 0:
        return _no_candidates()
    match, rows = lexical
    dated_ids: set[int] = set()
    if episodic.periods and weights.on_date:
        dated = [
            row
            for row in episodes.messages_in_periods(db, episodic.periods, weights.dated_candidates)
            if row[0] not in episodic.excluded
        ]
        dated_ids = {row[0] for row in dated}
        found = {row[0] for row in rows}
        unmatched = [row for row in dated if row[0] not in found]
        scores = (
            episodes.message_bm25(db, match, [row[0] for row in unmatched], weights.message_context)
            if match and unmatched
            else {}
        )
        rows += [(row[0], scores.get(row[0], 0.0), *row[1:]) for row in unmatched]
    cosine_of = dict(zip(semantic.ids.tolist(), semantic.scores.tolist(), strict=True))
    if cosine_of and weights.message_semantic:
        found = {row[0] for row in rows}
        meaning_only = sorted(i for i in cosine_of if i not in found)
        rows += [(row[0], 0.0, *row[1:]) for row in episodes.message_facts(db, meaning_only)]
    if not rows:
        return _no_candidates()
    ids, bm25, conversation, authors, age_days = (list(c) for c in zip(*rows, strict=True))
    bm25 = np.asarray(bm25, np.float32)
    if weights.message_saturation is not None:
        lexical_part = bm25 / (bm25 + weights.message_saturation)
    else:
        best = float(bm25.max())
        lexical_part = bm25 / best if best > 0 else np.zeros(len(bm25), np.float32)
    recency = 0.5 ** (np.asarray(age_days, np.float32) / weights.recency_half_life_days)
    same_conversation = (
        np.asarray(conversation) == conversation_id
        if conversation_id is not None
        else np.zeros(len(ids), bool)
    )
    named = _named(authors, episodic.names) if episodic.names and weights.author else None
    if named is None:
        named = np.zeros(len(ids), bool)
    on_date = np.array([i in dated_ids for i in ids], bool)
    in_semantic = np.array([i in cosine_of for i in ids], bool)
    semantic_part = np.zeros(len(ids), np.float32)
    semantic_reason = np.zeros(len(ids), bool)
    if cosine_of and weights.message_semantic and message_index is not None:
        cosine = message_index.lookup(ids, vector).cosine
        cosine[in_semantic] = [cosine_of[i] for i in ids if i in cosine_of]
        top = float(cosine.max())
        semantic_part = _scale(cosine, semantic.floor, top)
        bar = semantic.floor + 0.5 * (top - semantic.floor)
        semantic_reason = in_semantic & ((cosine >= bar) | (bm25 <= 0))
    evidence = lexical_part + weights.message_semantic * semantic_part
    evidence = evidence + weights.author * named + weights.on_date * on_date
    score = weights.episodic * evidence
    score = score + weights.recency * recency
    score = score + weights.this_conversation * same_conversation
    none = np.zeros(len(ids), bool)
    return _Candidates(
        np.asarray(ids, np.int64),
        score.astype(np.float32),
        bm25 > 0,
        semantic_reason,
        none,
        (recency >= 0.5) if weights.recency else none,
        same_conversation,
        named,
        on_date,
    )


def _named(authors: list[str], names: frozenset[str]) -> np.ndarray:
    """True where a message's author (or a word of it: "Caroline" for "Caroline Lee")
    is among ``names`` (normalised)."""
    verdict: dict[str, bool] = {"": False}
    named = np.zeros(len(authors), bool)
    for position, author in enumerate(authors):
        hit = verdict.get(author)
        if hit is None:
            hit = normalise(author) in names or bool(names & set(tokenize_query(author)))
            verdict[author] = hit
        named[position] = hit
    return named


def _memory_candidates(
    db: Database,
    terms: list[str],
    handoff: Future[tuple[_Semantic, _Semantic]],
    vector: np.ndarray | None,
    index: VectorIndex,
    excluded: frozenset[int],
    conversation_id: int | None,
    weights: RetrievalWeights,
    periods: tuple[tuple[str, str], ...] = (),
    told_with: dict[int, float] | None = None,
) -> _Candidates:
    """Lexical candidates, then (once the loop hands over the semantic ones) fusion
    with the facts from the index. A memory learned from a message written on a day
    the query names gets ``on_date`` (and is a candidate), as a message does.

    Candidate sets are small (two times ``weights.candidates`` at most); the scoring
    is done once over aligned numpy arrays. Their order — lexical ones best BM25 first,
    then the semantic-only ones by id — is the one ties keep.
    """
    lexical = _lexical(db, terms, weights, index.__contains__) if terms else _NO_LEXICAL
    semantic = handoff.result()[0]
    # Plain Python for the bookkeeping: with a hundred candidates at most, numpy's
    # per-call overhead (isin, searchsorted) cost more than the work.
    lexical_ids, bm25 = [], []
    for memory_id, score in zip(lexical.ids, lexical.bm25, strict=True):
        if memory_id not in excluded:
            lexical_ids.append(memory_id)
            bm25.append(score)
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
    told_with = {i: v for i, v in (told_with or {}).items() if i not in excluded}
    if told_with:
        listed = set(id_list)
        id_list += sorted(i for i in told_with if i not in listed)
    count = len(id_list)
    if not count:
        return _no_candidates()
    ids = np.array(id_list, np.int64)
    lexical_raw = np.zeros(count, np.float32)
    lexical_raw[: len(bm25)] = bm25
    is_lexical = np.zeros(count, bool)
    is_lexical[: len(bm25)] = True
    semantic_positions = [p for p, i in enumerate(id_list) if i in cosine_of]
    in_semantic = np.zeros(count, bool)
    in_semantic[semantic_positions] = True

    found = index.lookup(id_list, vector)
    age_days = _age_days(found.touched_ms)
    importance, pinned = found.importance, found.pinned
    age_days, conversation = age_days.astype(np.float32), found.conversation_id
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
            age_days[position] = row[3] or 0.0
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

    dated = np.array([i in dated_ids for i in id_list], bool)
    source_part = np.array([told_with.get(i, 0.0) for i in id_list], np.float32)
    if not alive.all():
        columns = (ids, lexical_raw, is_lexical, cosine, in_semantic, dated, source_part)
        ids, lexical_raw, is_lexical, cosine, in_semantic, dated, source_part = (
            c[alive] for c in columns
        )
        columns = (importance, pinned, age_days, conversation)
        importance, pinned, age_days, conversation = (c[alive] for c in columns)
        count = len(ids)
        if not count:
            return _no_candidates()

    fused = _fuse(weights, lexical_raw, is_lexical, cosine, in_semantic, semantic)
    recency = 0.5 ** (age_days / weights.recency_half_life_days)
    same_conversation = (
        conversation == conversation_id if conversation_id is not None else np.zeros(count, bool)
    )
    score = fused * (1.0 + weights.importance * (importance - 0.5))
    score = score + weights.recency * recency
    score = score + weights.pinned * pinned
    score = score + weights.this_conversation * same_conversation
    score = score + weights.on_date * dated
    score = score + weights.source_words * source_part
    # "Similar meaning" when the cosine is in the upper half of the semantic
    # candidates' range, or when it is the only evidence.
    semantic_bar = semantic.floor + 0.5 * (float(cosine.max()) - semantic.floor)
    semantic_reason = in_semantic & ((cosine >= semantic_bar) | ~is_lexical)
    return _Candidates(
        ids,
        score.astype(np.float32),
        is_lexical | (source_part > 0),
        semantic_reason,
        pinned.astype(bool),
        (recency >= 0.5) if weights.recency else np.zeros(count, bool),
        same_conversation,
        np.zeros(count, bool),
        dated,
    )


def _fuse(
    weights: RetrievalWeights,
    lexical_raw: np.ndarray,
    is_lexical: np.ndarray,
    cosine: np.ndarray,
    in_semantic: np.ndarray,
    semantic: _Semantic,
) -> np.ndarray:
    """Lexical and semantic evidence combined into one score in [0, 1]."""
    count = len(cosine)
    if weights.fusion == "rrf":
        fused = np.zeros(count, np.float32)
        for flags, raw, weight in (
            (is_lexical, lexical_raw, weights.lexical),
            (in_semantic, cosine, weights.semantic),
        ):
            order = np.argsort(-np.where(flags, raw, -np.inf), kind="stable")
            ranks = np.empty(count, np.float32)
            ranks[order] = np.arange(1, count + 1)
            fused += np.where(flags, weight / (weights.rrf_k + ranks), 0.0).astype(np.float32)
        # Scaled to [0, 1] so the adjustments mean the same as with normalised fusion.
        return fused / ((weights.lexical + weights.semantic) / (weights.rrf_k + 1))
    if weights.lexical_norm == "saturate":
        lexical_part = lexical_raw / (lexical_raw + weights.lexical_saturation)
    else:
        best_bm25 = float(lexical_raw.max())
        lexical_part = lexical_raw / best_bm25 if best_bm25 > 0 else lexical_raw
    if weights.semantic_norm == "raw":
        semantic_part = np.clip(cosine, 0.0, 1.0)
    elif len(semantic.ids):
        semantic_part = _scale(cosine, semantic.floor, float(cosine.max()))
    else:
        semantic_part = np.zeros(count, np.float32)
    lexical_weight = 0.0 if weights.fusion == "semantic" else weights.lexical
    semantic_weight = 0.0 if weights.fusion == "lexical" else weights.semantic
    fused = lexical_weight * lexical_part + semantic_weight * semantic_part
    return fused / max(lexical_weight + semantic_weight, 1e-9)


def with_weights(retriever: HybridRetriever, **changes) -> HybridRetriever:
    """A retriever over the same store and index with some weights changed (evaluation)."""
    return HybridRetriever(
        retriever.store,
        retriever.embedder,
        retriever.index,
        weights=replace(retriever.weights, **changes),
    )


__all__ = [
    "AUTHOR",
    "LEXICAL",
    "PINNED",
    "RECENT",
    "SEMANTIC",
    "THIS_CONVERSATION",
    "HybridRetriever",
    "RetrievalWeights",
    "Retrieved",
    "RetrievedMemory",
    "RetrievedMessage",
    "with_weights",
]
