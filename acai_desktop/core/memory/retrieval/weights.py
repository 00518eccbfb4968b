"""The weights of the ranking: plain numbers, the defaults the evaluation supported.

Each knob says in one line why it is there; the figures behind each default are in
docs/benchmarks.md ("Ranking knobs", "Ranking ideas tried", "Relevance floor"). Ideas
measured and not adopted live in :mod:`benchmarks.retrieval_variants`;
the app ranks one way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievalWeights:
    """Knobs of the ranking; the defaults are what the evaluation numbers supported."""

    # Memories: the share of the query's informative weight a memory's own words hold
    # (memory_tier.held_weight), averaged with the raw cosine.
    lexical: float = 0.5
    semantic: float = 0.5
    # Document passages: BM25 as s / (s + saturation), so a weak best match stays weak.
    lexical_saturation: float = 5.0
    candidates: int = 50  # per side, before fusion
    # A query keeps its rarest words while they occur in at most this many memories: a
    # word in thousands adds almost nothing to the ranking and makes the search slow.
    lexical_budget_documents: int = 400
    importance: float = 0.1  # score *= 1 + importance * (memory.importance - 0.5)
    # score += recency * 0.5 ** (age_days / recency_half_life_days)
    recency: float = 0.03
    recency_half_life_days: float = 30.0
    pinned: float = 0.1
    this_conversation: float = 0.02
    # Past messages (episodic recall, store/episodes.py): the whole message score times
    # this, so a fact, distilled, wins a tie with a message saying the same (0 leaves
    # messages out: ``memories search``).
    episodic: float = 0.6
    # A message's BM25 counts its neighbours' words (±2 turns) at this weight: "Yes,
    # last Friday!" answers the question before it.
    message_context: float = 0.5
    message_candidates: int = 100
    # The people a question asks about as speakers said it ("What did Caroline paint?").
    author: float = 0.2
    # The user wrote it, on a question about themselves ("How many … did I go to?").
    asker: float = 0.4
    # Written on a day or in a month the question names; such messages are candidates
    # even with no word in common.
    on_date: float = 0.5
    dated_candidates: int = 300
    # On the side of an event the question names ("before I moved"), of the day of the
    # message that best tells the event.
    event_window: float = 0.05
    # Says when ("last week") about what a "when" question asks: the answer must say it.
    answer_time: float = 0.1
    # A named speaker's reply to a question among the best ``reply_questions`` that
    # matches ("Any good books lately?" for "What book did Tim recommend?") gets this
    # share of its score.
    reply_share: float = 0.2
    reply_questions: int = 20
    # The message's cosine (averaged with its neighbours') as its standing in the whole
    # collection: paraphrases with no word in common, calibrated alike on chit-chat
    # and long chats.
    message_semantic: float = 0.1
    message_vector_context: float = 0.5
    # Found by meaning only: where questions share few words with what was said.
    message_semantic_candidates: int = 50
    # BM25 as s / (s + saturation), so a weak best match stays weak.
    message_saturation: float = 5.0
    # A memory learned from a message that matches gets this times the message's score.
    source_words: float = 1.0
    # The relevance floor (floor.py): words' share over a kind's coverage bar plus the
    # cosine's standing over its meaning bar reach 1. A memory, short and distilled,
    # keeps a low words bar: in a small profile the words are all the evidence there is.
    floor_coverage: float = 0.25
    floor_message_coverage: float = 0.5
    # Where meaning cannot be weighed (no embedder, under 50 messages): words alone.
    floor_message_coverage_without_meaning: float = 0.3
    floor_meaning: float = 12.0
    floor_message_meaning: float = 8.5
    # Told on a day the question names: that share of the bar from the date.
    floor_on_date: float = 0.4
    # A document passage holds several turns, so chance words add up: its own bars.
    floor_passage_coverage: float = 0.3
    floor_passage_meaning: float = 8.0
    floor_passage_coverage_without_meaning: float = 0.3
