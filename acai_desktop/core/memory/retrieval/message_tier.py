"""The message tier: messages of past conversations (episodic recall), scored."""

from __future__ import annotations

import numpy as np

from acai_desktop.core.memory.query import fts_match_expression, topic_stems
from acai_desktop.core.memory.relative_time import holds_time
from acai_desktop.core.memory.retrieval.candidates import (
    MIN_ITEMS_FOR_SPREAD,
    EpisodicQuery,
    ScoredCandidates,
    SemanticCandidates,
    no_candidates,
    scale_between,
)
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.memory.vector_index import Cosines, VectorIndex
from acai_desktop.core.rules.words import normalise
from acai_desktop.core.rules.words import tokenize as tokenize_query
from acai_desktop.core.store import episodes
from acai_desktop.core.store.connection import Database


def message_candidates(
    db: Database,
    lexical: tuple[str | None, list[tuple]],
    semantic: SemanticCandidates,
    vector: np.ndarray | None,
    message_index: VectorIndex | None,
    conversation_id: int | None,
    weights: RetrievalWeights,
    episodic: EpisodicQuery,
    k: int | None = None,
) -> ScoredCandidates:
    """Recalled messages: BM25 over each message and its neighbours' words (see
    ``RetrievalWeights.episodic``) and their meaning (the cosine's standing in the whole
    collection, see :meth:`SemanticCandidates.standing`), with the same recency and
    conversation adjustments as memories, plus ``author`` when the query names who
    said it and ``asker`` for the user's own messages when it asks in the first person."""
    if weights.episodic <= 0:
        return no_candidates()
    match, rows = lexical
    dated_ids: set[int] = set()
    if episodic.periods and weights.on_date:
        dated = [
            row
            for row in episodes.messages_in_periods(
                db, episodic.periods, weights.dated_candidates, episodic.now
            )
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
        facts = episodes.message_facts(db, meaning_only, episodic.now)
        rows += [(row[0], 0.0, *row[1:]) for row in facts]
    # The loop chose the meaning candidates before the database thread could add to the
    # excluded ids (the sources of forgotten memories, see ranking.rank).
    rows = [row for row in rows if row[0] not in episodic.excluded]
    if not rows:
        return no_candidates()
    columns = (list(c) for c in zip(*rows, strict=True))
    ids, bm25, conversation, authors, age_days, before, after, by_user = columns
    bm25 = np.asarray(bm25, np.float32)
    lexical_part = bm25 / (bm25 + weights.message_saturation)
    recency = 0.5 ** (np.asarray(age_days, np.float32) / weights.recency_half_life_days)
    same_conversation = (
        np.asarray(conversation) == conversation_id
        if conversation_id is not None
        else np.zeros(len(ids), bool)
    )
    named = said_by_named(authors, episodic.names) if episodic.names and weights.author else None
    if named is None:
        named = np.zeros(len(ids), bool)
    # ``author`` lifts what the people the question asks about said: in "What did Jon
    # say about Gina's store?" Jon's messages, not Gina's (the relevance floor still
    # lets both through: ``named``).
    speaking = named
    if weights.author and episodic.speakers and episodic.speakers != episodic.names:
        speaking = said_by_named(authors, episodic.speakers)
    asker = np.zeros(len(ids), bool)
    if episodic.first_person and weights.asker:
        asker = np.asarray(by_user, bool)
    on_date = (
        np.array([i in dated_ids for i in ids], bool) if dated_ids else np.zeros(len(ids), bool)
    )
    in_event_window = event_windows(db, episodic, np.asarray(age_days, np.float64), weights)
    in_semantic = np.array([i in cosine_of for i in ids], bool)
    semantic_part = np.zeros(len(ids), np.float32)
    semantic_reason = np.zeros(len(ids), bool)
    cosine = np.zeros(len(ids), np.float32)
    if cosine_of and weights.message_semantic and message_index is not None:
        cosine, in_context = context_cosines(
            message_index, vector, ids, before, after, weights, semantic.every
        )
        # Calibrated on the whole collection: how far the message (with its
        # neighbours) stands above the query's mean cosine, in standard deviations. A
        # few dozen messages have no spread worth the name: there, the candidates'
        # worst to best.
        if semantic.items >= MIN_ITEMS_FOR_SPREAD:
            semantic_part = semantic.standing(in_context)
        else:
            low, high = float(in_context.min()), float(in_context.max())
            semantic_part = scale_between(in_context, low, high)
        top = float(cosine.max())
        bar = semantic.floor + 0.5 * (top - semantic.floor)
        semantic_reason = in_semantic & ((cosine >= bar) | (bm25 <= 0))
    evidence = lexical_part + weights.message_semantic * semantic_part
    evidence = evidence + weights.author * speaking + weights.on_date * on_date
    evidence = evidence + weights.asker * asker
    evidence = evidence + weights.event_window * in_event_window
    score = weights.episodic * evidence
    score = score + weights.recency * recency
    score = score + weights.this_conversation * same_conversation
    if episodic.asks_when and weights.answer_time:
        score = score + answer_time_lift(db, ids, score, weights, k, episodic.topic)
    if weights.reply_share and speaking.any():
        score = score + reply_lift(db, ids, after, authors, speaking, score, weights)
    none = np.zeros(len(ids), bool)
    return ScoredCandidates(
        np.asarray(ids, np.int64),
        score.astype(np.float32),
        bm25 > 0,
        semantic_reason,
        none,
        (recency >= 0.5) if weights.recency else none,
        same_conversation,
        speaking | asker,
        on_date,
        semantic.floor_standing(cosine) if len(semantic.ids) else np.full(len(ids), -np.inf),
        np.asarray(before, np.int64),
        np.asarray(after, np.int64),
        named,
    )


def reply_lift(
    db: Database,
    ids: list[int],
    after: list[int],
    authors: list[str],
    speaking: np.ndarray,
    score: np.ndarray,
    weights: RetrievalWeights,
) -> np.ndarray:
    """``reply_share`` of a question's score for its reply: for each of the
    ``reply_questions`` best candidates that ends with "?", the message after it when
    another speaker wrote it and the query names that speaker (``speaking``). "What
    book did Tim recommend?" matches John's "Any good books lately?" better than
    Tim's answer. Only candidates are lifted, and only their texts are read (one
    statement, a few at most)."""
    lifted = np.zeros(len(ids), np.float32)
    where = {message_id: position for position, message_id in enumerate(ids)}
    best = np.argsort(-score, kind="stable")[: weights.reply_questions]
    replies = []
    for position in best.tolist():
        reply = where.get(after[position])
        if reply is not None and speaking[reply] and authors[reply] != authors[position]:
            replies.append((position, reply))
    if not replies:
        return lifted
    contents = episodes.message_contents(db, [ids[p] for p, _ in replies])
    for position, reply in replies:
        if contents.get(ids[position], "").rstrip().endswith("?"):
            lifted[reply] = max(lifted[reply], weights.reply_share * score[position])
    return lifted


def answer_time_lift(
    db: Database,
    ids: list[int],
    score: np.ndarray,
    weights: RetrievalWeights,
    k: int | None,
    topic: frozenset[str],
) -> np.ndarray:
    """``answer_time`` (times ``episodic``) for each candidate that says when something
    happens or happened ("yesterday", "last week", "in May": relative_time.TELLS_TIME)
    about what the question asks (``topic``: its own text shares a word of it, not
    only its neighbours), what a question that asks for a time
    (``EpisodicQuery.asks_when``) needs of its answer: "The class meets every
    Wednesday" does not say when Idris ran the race. Only the candidates the lift can
    bring into the best ``k`` are read: a lift only adds, so one below the ``k``-th
    best score less the lift stays out whatever its text says (the answer is the
    same, for a few dozen texts read instead of a few hundred)."""
    lifted = np.zeros(len(ids), np.float32)
    if not topic:
        return lifted
    lift = weights.episodic * weights.answer_time
    positions = np.arange(len(ids))
    if k is not None and 0 < k < len(ids):
        kth_best = float(np.partition(score, len(ids) - k)[len(ids) - k])
        # Rounding to the reported 6 digits can tie what falls just short: a margin.
        positions = np.flatnonzero(score >= kth_best - lift - 1e-5)
    contents = episodes.message_contents(db, [ids[p] for p in positions])
    for position in positions.tolist():
        text = contents.get(ids[position], "")
        if holds_time(text) and not topic.isdisjoint(topic_stems(text)):
            lifted[position] = lift
    return lifted


def event_windows(
    db: Database, episodic: EpisodicQuery, age_days: np.ndarray, weights: RetrievalWeights
) -> np.ndarray:
    """True where a candidate (of age ``age_days``) was written on the side the query
    names of each event it names ("before I moved": before the day of the message
    that best tells "moved"; the user's own when the query is in the first person).
    An event no message tells names no window."""
    inside = np.zeros(len(age_days), bool)
    if not weights.event_window:
        return inside
    excluded = sorted(episodic.excluded)
    for anchor in episodic.anchors:
        match = fts_match_expression(list(anchor.words))
        if match is None:
            continue
        age = episodes.event_age(db, match, episodic.now, episodic.first_person, excluded)
        if age is None:
            continue
        # Ages count days back from now: older than the event is before it.
        inside |= age_days > age if anchor.side == "before" else age_days <= age
    return inside


def context_cosines(
    message_index: VectorIndex,
    vector: np.ndarray,
    ids: list[int],
    before: list[int],
    after: list[int],
    weights: RetrievalWeights,
    every: Cosines | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each message's cosine with the query, and the same averaged with those of the
    messages just before and after it, weighted ``message_vector_context`` (a message
    not in the index counts 0; a neighbour not in it, none or one not recallable or
    not embedded yet, not at all): "Yes, last Friday!" means what the question
    before it asked. ``every``: the query's product with the whole index, which the
    cosines are read from while it is current."""
    count = len(ids)
    indexed, cosine = message_index.cosines_of(ids + before + after, vector, every)
    own, previous, following = cosine[:count], cosine[count : 2 * count], cosine[2 * count :]
    share = weights.message_vector_context
    has_before = indexed[count : 2 * count]
    has_after = indexed[2 * count :]
    total = own + share * (previous * has_before + following * has_after)
    return own, total / (1.0 + share * (has_before.astype(np.float32) + has_after))


def said_by_named(authors: list[str], names: frozenset[str]) -> np.ndarray:
    """True where a message's author (or a word of it: "Caroline" for "Caroline Lee")
    is among ``names`` (normalised)."""
    # One verdict per distinct author (a conversation has two), set into the array
    # at once: an element assignment per message cost more than the verdicts.
    verdict = {author: is_named(author, names) for author in set(authors)}
    return np.array([verdict[author] for author in authors], bool)


def is_named(author: str, names: frozenset[str]) -> bool:
    """Whether ``author`` (or a word of it) is among ``names`` (normalised)."""
    if not author:
        return False
    return normalise(author) in names or bool(names & set(tokenize_query(author)))
