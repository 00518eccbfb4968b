"""The weights of the ranking: plain numbers, the defaults the evaluation supported.

Ideas that were measured and not adopted (reciprocal rank fusion, pseudo-relevance
feedback, other normalisations, ...) live in :mod:`acai_desktop.evaluation`, which
builds a variant of the retriever to try them; the app ranks one way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievalWeights:
    """Knobs of the ranking; the defaults are what the evaluation numbers supported."""

    # Memories: the share of the query's informative weight a memory's own words hold
    # (memory_tier.held_weight: each word its IDF in the profile, light stems) and the
    # raw cosine, averaged with these weights. The share replaced BM25 scaled as
    # s / (s + lexical_saturation): LoCoMo dev observations, recall_any@10 among the
    # answerable questions 0.897 -> 0.905; LongMemEval-S dev with the rules' facts of
    # the user's turns as the memories, any@1 / any@10 0.586 / 0.865 -> 0.640 / 0.865
    # (BM25 over the query's IDF sum, bm25 / (bm25 + 0.5 x sum): 0.903; 0.613 / 0.856).
    lexical: float = 0.5
    semantic: float = 0.5
    # Document passages keep BM25 scaled as s / (s + lexical_saturation), which keeps a
    # weak best match weak (a passage holds several turns: chance words add up).
    lexical_saturation: float = 5.0
    candidates: int = 50  # per side, before fusion
    # BM25 scores every memory that holds any query word (about 2 µs each), so a word
    # found in thousands of memories makes the search slow while adding almost nothing
    # to the ranking (its IDF is near zero). The query keeps its words rarest first
    # while together they occur in at most this many memories (see lexical.lexical_match).
    lexical_budget_documents: int = 400
    # score *= 1 + importance * (memory.importance - 0.5)
    importance: float = 0.1
    # score += recency * 0.5 ** (age_days / recency_half_life_days)
    recency: float = 0.03
    recency_half_life_days: float = 30.0
    pinned: float = 0.1
    this_conversation: float = 0.02
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
    #   +0.02; only the people it asks about as speakers ("Jon", not "Gina", in "What
    #   did Jon say about Gina's store?"; query._speakers): 0.858 -> 0.862, LongMemEval
    #   unchanged;
    # - ``on_date`` when it was written on a day or in a month the question names
    #   ("What did Nate cook on 9 November, 2022?"); such messages are candidates even
    #   with no word in common: +0.015;
    # - ``message_semantic``: the message's cosine with the question averaged with its
    #   neighbours' (each weighted ``message_vector_context``; "Yes, last Friday!"
    #   means what the question before it asked), scaled between the candidates'
    #   worst and best — it finds paraphrases with no word in common. With the
    #   message's own cosine (0.2) it measured -0.002 (the questions reuse the turns'
    #   words); with the neighbours' at 0.5 and the weight 0.1, 0.847 -> 0.855
    #   (recall_all@10 0.729 -> 0.740; own cosine scaled the same way 0.849,
    #   neighbours at 0.3 0.855, at 1.0 0.854, weight 0.2 0.857 but recall_all 0.736);
    # - the whole message score times ``episodic`` (0.6), so that a fact, distilled
    #   and embedded, wins a tie with a message saying the same; with one tier (the
    #   benchmark) the factor changes nothing. 0 leaves messages out (``memories search``).
    # - ``asker`` for a message the user wrote when the question speaks of the asker
    #   ("How many doctor's appointments did I go to?"): "I" names the user as
    #   "Caroline" names Caroline. LongMemEval-S dev, where every question is the
    #   user's about themselves: see the docs' table;
    # - ``message_semantic`` now weighs the cosine's standing in the whole collection
    #   (standard deviations above the query's mean cosine over every message), not
    #   its place between the candidates' worst and best: a calibrated score means the
    #   same on short chit-chat and on long chats with an assistant.
    episodic: float = 0.6
    message_context: float = 0.5
    message_candidates: int = 100
    author: float = 0.2
    asker: float = 0.4
    on_date: float = 0.5
    dated_candidates: int = 300
    # A message on the side of an event the question names ("before I moved", "since I
    # started collecting again"; relative_time.EventAnchor) of the day of the message
    # that best tells the event. Few dev questions name one (about 15 of 918) and most
    # already found their evidence: recall@10 is the same at 0, 0.05 and 0.1 on both
    # dev files; LongMemEval's @1 0.557 -> 0.551 at either weight, so the smaller.
    event_window: float = 0.05
    # A message that says when (relative_time.TELLS_TIME: "yesterday", "last week", "in
    # May") about what the question asks (its own text shares a content stem of it,
    # query.asked_topic) when the question asks for a time ("When did Melanie paint a
    # sunrise?", query.asks_when): the answer must say it. LoCoMo dev turns
    # recall_any@10 / all@10 0.858 / 0.737 -> 0.863 / 0.742 (any time word, topic or
    # not: 0.862 / 0.741, and "every Wednesday" beat the race in "When did Idris run
    # the race?"), LongMemEval-S dev unchanged (0.968 / 0.835).
    answer_time: float = 0.1
    # A reply to a question that matches: when one of the ``reply_questions`` best
    # candidates ends with "?" and the next message is by a speaker the question names,
    # that reply gets ``reply_share`` of the question's score. "What book did Tim
    # recommend?" matches John's "Any good books lately?", not Tim's answer. Only a
    # named speaker's reply: lifting any reply cost LongMemEval (user-assistant chats,
    # where the answer is the user's own words) recall_all@10 0.835 -> 0.785 (an offline
    # re-ranking of the dev candidates, 0.2 of the best 10 questions' scores).
    # LoCoMo dev turns recall_any@10 / all@10 0.863 / 0.742 -> 0.872 / 0.750 (floor
    # 0.862 -> 0.871, off-topic 0.40 unchanged); LongMemEval-S dev unchanged (0.968 /
    # 0.835: its questions name no speaker). Best 10 instead of 20: 0.867 / 0.746;
    # shares 0.15 to 0.3 with 20 to 30 questions: 0.870 to 0.874.
    reply_share: float = 0.2
    reply_questions: int = 20
    message_semantic: float = 0.1
    message_vector_context: float = 0.5
    # Messages found by meaning only: where the question shares few words with what
    # was said (LongMemEval's chats) they are most of the top ten.
    message_semantic_candidates: int = 50
    message_saturation: float = 5.0
    # A memory learned from a message that matches the query (memory_sources) gets
    # this times that message's scaled BM25 (its neighbours' words included, plus
    # ``author`` when the query names who said it): "I've been writing backend
    # services in Python for years" finds the fact it taught. LoCoMo dev, observations
    # as facts learned from their turns: 0.693 -> 0.741 (0.5: 0.737, 1.5: 0.746).
    source_words: float = 1.0
    # The relevance floor (floor.py): an item enters a prompt when its word evidence
    # and its meaning evidence add up to the bar: the share of the question's
    # informative weight its words hold over ``floor_coverage`` (a memory, short and
    # distilled) or ``floor_message_coverage`` (a message, chattier), plus its cosine's
    # standing (standard deviations above the collection's mean) over
    # ``floor_meaning`` (a memory) or ``floor_message_meaning`` (a message); or it is
    # said by (or names) someone the question names, or it is next to a message that
    # passes. Calibrated on LoCoMo and LongMemEval-S dev at once (questions asked of
    # another sample's profile against the real ones; see docs/architecture.md). The
    # earlier rule, words or meaning alone (0.25 / 0.3 / 5.0), let long answers with
    # chance words through and kept less evidence. A memory's words bar stays 0.25: in a
    # profile too small for a cosine spread ("backend" for "What language should I use
    # for my backend?" among three facts) the words are all the evidence there is.
    floor_coverage: float = 0.25
    floor_message_coverage: float = 0.5
    # Where meaning cannot be weighed (no embedder, or under 50 messages), a message's
    # words carry it alone at the earlier bar ("backend" in "I prefer Python for
    # backend." for "Which language for my backend?").
    floor_message_coverage_without_meaning: float = 0.3
    floor_meaning: float = 12.0
    floor_message_meaning: float = 8.5
    # An item told on a day the question names ("last Saturday") has this share of the
    # bar from its date: with some words or meaning it passes, a message of that day
    # about nothing asked does not. With it the messages' meaning bar rose from 8 σ to
    # 8.5 σ (both dev files, off-topic questions and real ones; docs/architecture.md).
    floor_on_date: float = 0.4
    # A document passage (documents/search.py), calibrated on real text: LoCoMo's and
    # LongMemEval's sessions written as documents, each sample's questions asked of its
    # own sessions and of another sample's (``eval documents-floor``, top 5). A passage
    # holds several turns, so chance words add up: at a message's bars (0.5, 8 σ)
    # LoCoMo kept recall_any@5 0.858 -> 0.767; at 0.3 and 8 σ 0.830 with 0.86 off-topic
    # passages per question (LongMemEval, 80 samples: 0.700 -> 0.688, 2.8 off-topic,
    # its chats share topics across samples). No bar met both goals there.
    floor_passage_coverage: float = 0.3
    floor_passage_meaning: float = 8.0
    floor_passage_coverage_without_meaning: float = 0.3
