"""The hybrid retriever: one search over memories and recalled messages.

One search is: queue the ranking on the database thread — the read-only connection's
(:meth:`Store.submit_read`), so it never waits behind a write — which starts with the BM25
queries while the event loop embeds the query (microseconds with WordLlama; an
embedder that must wait, for the network, embeds before the ranking is queued) and
computes the matrix-vector products over the in-memory :class:`VectorIndex` of memories and
that of messages (the loop is the only thread that changes them) and hands the
semantic candidates over; the database thread then scores each tier with numpy and
loads the records of the top ``k`` only (see :mod:`ranking`). One hop.

The steps a variant may change are methods (:meth:`HybridRetriever.understand`,
:meth:`~HybridRetriever.semantic_candidates`, :meth:`~HybridRetriever.fuse`,
:meth:`~HybridRetriever.rank`): the evaluation package overrides them to try ideas
against this ranking without the app carrying switches for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, date, datetime

import numpy as np

from acai_desktop.core.memory.query import (
    ProcessedQuery,
    asked_topic,
    fts_match_expression,
    process_query,
)
from acai_desktop.core.memory.relative_time import EventAnchor
from acai_desktop.core.memory.retrieval.candidates import (
    EpisodicQuery,
    SemanticCandidates,
    SemanticSide,
    no_semantic_candidates,
)
from acai_desktop.core.memory.retrieval.fusion import Evidence
from acai_desktop.core.memory.retrieval.fusion import fuse as fuse_evidence
from acai_desktop.core.memory.retrieval.ranking import RankRequest
from acai_desktop.core.memory.retrieval.ranking import rank as rank_on_database
from acai_desktop.core.memory.retrieval.results import Retrieved
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.memory.vector_index import VectorIndex, best_positions
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.rules.bearings import bearings_of, bears_on
from acai_desktop.core.rules.words import normalise
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.database import Store

#: The facts read to find those of a kind of request (core.rules.bearings), most
#: important first (some are about someone else, or say the word in passing).
BEARING_CANDIDATES = 40


@dataclass(frozen=True)
class SearchQuery:
    """What a search takes from the query's text."""

    terms: list[str]  # the words for BM25
    embedded: str  # the text whose vector is the semantic side's query
    names: frozenset[str]  # normalised capitalised words ("Caroline")
    periods: tuple[tuple[str, str], ...]  # the days and months it names
    first_person: bool = False  # it asks about the asker ("I", "my")
    anchors: tuple[EventAnchor, ...] = ()  # events it asks before or after
    speakers: frozenset[str] = frozenset()  # the names it asks about as speakers
    asks_when: bool = False  # it asks for a time
    topic: frozenset[str] = frozenset()  # what it asks about (stems, names and times out)

    @classmethod
    def of(cls, processed: ProcessedQuery, embedded: str) -> SearchQuery:
        return cls(
            processed.terms,
            embedded,
            frozenset(map(normalise, processed.names)),
            tuple(processed.periods),
            processed.first_person,
            tuple(processed.anchors),
            frozenset(map(normalise, processed.speakers)),
            processed.asks_when,
            asked_topic(processed) if processed.asks_when else frozenset(),
        )


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
        now: datetime | None = None,
        as_of: datetime | None = None,
        scope: ProjectScope | None = None,
        reach: int | None = None,
    ) -> list[Retrieved]:
        """The ``k`` best active memories and recalled messages for ``query``, best first.

        ``reach``: read the ranking this deep instead (more than ``k``), the best
        ``reach`` of each tier (memories, messages); below the first ``k`` of its
        tier an item is relevant only on strong evidence of its own
        (:data:`floor.STRONG_SUPPORT`), so a prompt packs what is sure to bear on the
        question however many there are, and no tail of weak matches.

        ``exclude_ids``: memories the caller already has (the conversation's own
        summaries, pinned ones it adds anyway). ``exclude_message_ids``: messages it
        already has (the recent turns of the conversation it answers in).
        ``conversation_id``: memories that came from this conversation get a small boost.
        ``now``: when the question is asked (default: now, UTC); "last weekend" and
        "two weeks ago" count from it, and so do messages' ages.
        ``as_of``: search the memory as it was then (a regenerated answer's question):
        memories created or changed later and messages written later are left out,
        and ``now`` defaults to it.
        ``scope``: what the chat may see (its project's memories and messages and those
        outside any project, never another project's: they are left out of every
        candidate path as excluded ids); None: everything.
        """
        if k <= 0:
            return []
        now = now or as_of or datetime.now(UTC)
        understood = self.understand(query, now.date())
        request = RankRequest(
            understood.terms,
            max(k, reach or 0),
            frozenset(int(i) for i in exclude_ids),
            conversation_id,
            EpisodicQuery(
                frozenset(int(i) for i in exclude_message_ids),
                understood.names,
                understood.periods,
                now.astimezone(UTC).isoformat(timespec="microseconds"),
                understood.first_person,
                understood.anchors,
                understood.speakers,
                understood.asks_when,
                understood.topic,
            ),
            scope,
            as_of.astimezone(UTC).isoformat(timespec="microseconds") if as_of else None,
            sure_within=k if reach is not None and reach > k else None,
        )
        if not query.strip():
            return await self.rank(request, None)
        text = [understood.embedded]
        if self.embedder.embeds_now(text):
            # Embedded on the loop while the database thread runs the full-text queries.
            return await self.rank(request, None, embed=understood.embedded)
        return await self.rank(request, (await self.embedder.embed(text))[0])

    def understand(self, query: str, today: date | None = None) -> SearchQuery:
        """The query's informative words (stop words out), which are also what is
        embedded: "how", "did" and the like would pull towards small talk that shares
        them. A query of stop words only is embedded as typed. ``today`` resolves the
        time it names relative to the day it is asked."""
        processed = process_query(query, today)
        embedded = " ".join(processed.terms) if processed.terms else query
        return SearchQuery.of(processed, embedded)

    async def rank(
        self, request: RankRequest, vector: np.ndarray | None, *, embed: str | None = None
    ) -> list[Retrieved]:
        """One hop to the database thread, which runs the full-text queries while the
        loop computes the cosine products (at 100,000 memories each takes
        milliseconds), then takes the semantic side, fuses, and loads the top ``k``'s
        records.

        ``embed``: a text to embed for ``vector`` once the database thread has started;
        only for an embedder that :meth:`~Embedder.embeds_now` it, since the database
        thread waits for the vector.

        A request that hides more than its caller's ids (``scope``: another project's
        items; ``as_of``: what was written later) has them read by the database thread
        first, in the ranking's own transaction, and handed back (``hidden``): the
        semantic side leaves them out as well. That costs no hop of its own (a read of
        its own took 0.2–0.35 ms of each of the app's searches, which all have a scope)."""
        handoff: Future[SemanticSide] = Future()
        hidden: Future[RankRequest] | None = Future() if request.hides_more else None
        job = self.store.submit_read(
            rank_on_database,
            request,
            handoff,
            self.index,
            self.messages,
            self.weights,
            self.fuse,
            hidden,
        )
        # Nothing may be awaited that can suspend before the handoff is settled, except
        # ``hidden``, which the database thread settles before it waits for the handoff.
        # (An embedder that embeds_now never suspends.)
        try:
            if embed is not None:
                vector = (await self.embedder.embed([embed]))[0]
            if hidden is not None:
                request = await _handed_back(hidden, job)
            handoff.set_result(
                SemanticSide(
                    vector,
                    self.semantic_candidates(
                        self.index, vector, request.excluded, self.weights.candidates
                    ),
                    self.semantic_candidates(
                        self.messages,
                        vector,
                        request.episodic.excluded,
                        self.weights.message_semantic_candidates,
                    ),
                )
            )
        except BaseException as error:
            handoff.set_exception(error)
        return await job

    def fuse(self, evidence: Evidence) -> np.ndarray:
        """The memory candidates' lexical and semantic evidence as one score in [0, 1];
        runs on the database thread."""
        return fuse_evidence(self.weights, evidence)

    def semantic_candidates(
        self,
        index: VectorIndex | None,
        vector: np.ndarray | None,
        excluded: frozenset[int],
        candidates: int,
    ) -> SemanticCandidates:
        """The ``candidates`` nearest items of ``index`` to ``vector``, best first."""
        if vector is None or index is None or not len(index):
            return no_semantic_candidates()
        every = index.cosines(vector)
        ids, scores = every.ids, every.scores
        if excluded:
            # Their rows, looked up (a few ids), rather than every id tested against them.
            rows = index.rows(list(excluded))
            scores = scores.copy()
            scores[rows[rows >= 0]] = -np.inf
        top = best_positions(scores, candidates)
        top_scores = scores[top].astype(np.float32)
        floor = float(top_scores[-1]) if len(top_scores) else 0.0
        finite = scores[np.isfinite(scores)] if excluded else scores
        mean = float(finite.mean()) if len(finite) else 0.0
        spread = float(finite.std()) if len(finite) > 1 else 0.0
        # Copies: the index may change while the lexical query is awaited.
        return SemanticCandidates(
            ids[top].copy(),
            top_scores,
            floor,
            mean,
            spread if spread > 1e-6 else 1.0,
            len(finite),
            every,
        )

    async def pinned(self, scope: ProjectScope | None = None) -> list[MemoryItem]:
        """Every active pinned memory ``scope`` sees (None: all): the context builder
        always includes them. Read on the read-only connection, as the search is: a chat
        turn's prompt does not wait behind a write (an import's batch, a learning job)."""
        pinned = await self.store.read(sql.pinned_memories)
        if scope is None:
            return pinned
        return [m for m in pinned if m.project_id is None or m.project_id == scope.project_id]

    async def known_facts(self, scope: ProjectScope | None = None) -> list[MemoryItem]:
        """Every active fact and note ``scope`` sees (None: all), pinned first, then the
        most important: what is known of the user, as the app lists it."""
        known = await self.store.read(sql.known_facts)
        if scope is None:
            return known
        return [m for m in known if m.project_id is None or m.project_id == scope.project_id]

    async def bearing_facts(
        self,
        query: str,
        scope: ProjectScope | None = None,
        *,
        exclude_ids: Iterable[int] = (),
        known_then: Callable[[MemoryItem], bool] | None = None,
    ) -> list[tuple[MemoryItem, str]]:
        """The lasting facts about the user that bear on the kind of request ``query`` is
        (see :mod:`acai_desktop.core.rules.bearings`), each with what it tells ("your
        diet"); at most the bearing's ``most`` of each kind, the most important first.
        They go into the prompt beside the ranked memories: no word or meaning links them
        to the request, so the ranking and its floor can't bring them."""
        excluded = {int(i) for i in exclude_ids}
        found: list[tuple[MemoryItem, str]] = []
        for bearing in bearings_of(query):
            if bearing.fact_terms:
                match = fts_match_expression(bearing.fact_terms.split())
                candidates = await self.store.read(sql.facts_holding, match, BEARING_CANDIDATES)
            else:
                candidates = await self.store.read(sql.most_important_facts, BEARING_CANDIDATES)
            chosen = [
                memory
                for memory in candidates
                if memory.id not in excluded
                and (scope is None or memory.project_id in (None, scope.project_id))
                and (known_then is None or known_then(memory))
                and bears_on(memory.content, bearing)
            ][: bearing.most]
            excluded.update(memory.id for memory in chosen)
            found += [(memory, bearing.name) for memory in chosen]
        return found


async def _handed_back(hidden: Future[RankRequest], job: asyncio.Future) -> RankRequest:
    """The request as the database thread hands it back with what it hides (read while
    the loop embedded the query: seldom still pending). A job that ends without handing
    it back (it failed before the ranking began: the reader was closed) raises its error
    here rather than leave the loop waiting."""
    if not hidden.done():
        await asyncio.wait([asyncio.wrap_future(hidden), job], return_when=asyncio.FIRST_COMPLETED)
    if not hidden.done():
        await job  # its error
        raise RuntimeError("the ranking ended without reading what its request hides")
    return hidden.result()
