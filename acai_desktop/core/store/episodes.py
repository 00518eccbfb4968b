"""The SQL behind episodic recall: messages of past conversations found by their words.

``messages_fts`` (migration m002) holds every recallable message — a finished turn of
an ordinary conversation — with the text of the turns around it; triggers keep it in
step, so a temporary chat's messages are never in it and a deleted chat's leave with
them. These functions run on the database thread, on the search's hot path: they
return plain tuples, and records only for the few messages a search returns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from acai_desktop.core.records.conversations import RecalledMessage
from acai_desktop.core.store.connection import Database, contents_by_id
from acai_desktop.core.store.memories import ids_and_vectors

MESSAGES_FTS = "messages_fts"

# The messages just before and after ``m`` in its conversation (-1 for none), and
# whether the user wrote it (a question in the first person prefers those): the
# semantic side scores a message with its neighbours' vectors too. Read from the
# index on messages(conversation_id, id) alone (reading the rows to skip ones that
# are not recallable cost more than the rest of the query; the first row of an ordered
# seek, which stops there, where max() and min() read on); a neighbour that is not
# recallable has no vector in the message index, and the ranking leaves it out.
_NEIGHBOURS = """
    coalesce((SELECT p.id FROM messages AS p
              WHERE p.conversation_id = m.conversation_id AND p.id < m.id
              ORDER BY p.id DESC LIMIT 1), -1),
    coalesce((SELECT n.id FROM messages AS n
              WHERE n.conversation_id = m.conversation_id AND n.id > m.id
              ORDER BY n.id LIMIT 1), -1),
    m.role = 'user'
"""


def message_hits(
    db: Database, match: str, limit: int, context_weight: float, now: str = "now"
) -> list[tuple[int, float, int, str, float, int, int, int]]:
    """The best ``limit`` recallable messages for an FTS5 MATCH expression, best first:
    ``(id, bm25 (higher is better), conversation id, author ('' for none), age in
    days, previous message id, next message id, written by the user)`` (see
    ``_NEIGHBOURS``).

    BM25 weighs a word in the message itself 1 and in its neighbours' text
    ``context_weight``. The join to ``messages`` runs on the few rows FTS5 kept.
    Ages count from ``now`` (an ISO timestamp, or SQLite's "now").
    """
    hits, hit_params = db.dialect.full_text.best_message_scores(match, context_weight, limit)
    rows = db.execute(
        f"""
        SELECT h.id, -h.score, m.conversation_id, coalesce(m.author, ''),
               {db.dialect.days_since("?", "m.created_at")}, {_NEIGHBOURS}
        FROM ({hits}) AS h
        JOIN messages AS m ON m.id = h.id
        ORDER BY h.score, h.id
        """,
        [now, *hit_params],
    ).fetchall()
    return [tuple(row) for row in rows]


def recalled_messages(db: Database, ids: Sequence[int]) -> dict[int, RecalledMessage]:
    """The records of the messages among ``ids`` that are still recallable."""
    if not len(ids):
        return {}
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"""
        SELECT m.id, m.conversation_id, c.title, m.role, m.content, m.created_at, m.author
        FROM recallable_messages AS m JOIN conversations AS c ON c.id = m.conversation_id
        WHERE m.id IN ({marks})
        """,
        [int(i) for i in ids],
    ).fetchall()
    return {row[0]: RecalledMessage(*row) for row in rows}


def message_contents(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """The text of each message among ``ids`` (a few hundred candidates at most)."""
    return contents_by_id(db, "messages", ids)


def messages_in_periods(
    db: Database, periods: Sequence[tuple[str, str]], limit: int, now: str = "now"
) -> list[tuple[int, int, str, float, int, int, int]]:
    """Recallable messages written within any of ``periods`` (``[start, end)`` ISO
    dates), oldest first, at most ``limit``: ``(id, conversation id, author, age in
    days, previous message id, next message id, written by the user)``. Dates compare as text: every
    stored date is ISO 8601 in UTC."""
    if not periods:
        return []
    within = " OR ".join("(m.created_at >= ? AND m.created_at < ?)" for _ in periods)
    rows = db.execute(
        f"""
        SELECT m.id, m.conversation_id, coalesce(m.author, ''),
               {db.dialect.days_since("?", "m.created_at")}, {_NEIGHBOURS}
        FROM recallable_messages AS m WHERE {within}
        ORDER BY m.created_at, m.id LIMIT ?
        """,
        [now, *(bound for period in periods for bound in period), int(limit)],
    ).fetchall()
    return [tuple(row) for row in rows]


def message_bm25(
    db: Database, match: str, ids: Sequence[int], context_weight: float
) -> dict[int, float]:
    """BM25 (higher is better) of the messages among ``ids`` that match.

    Every match is scored and the wanted ones kept: FTS5 answers ``rowid IN (...)``
    by running the query once per id (8 ms for 30 ids), while the expressions
    retrieval builds match a few hundred messages at most (see
    ``RetrievalWeights.lexical_budget_documents``)."""
    wanted = {int(i) for i in ids}
    if not wanted:
        return {}
    return db.dialect.full_text.message_bm25(db, match, wanted, context_weight)


def recallable_embeddings(
    db: Database, model: str, dimensions: int
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the recallable messages whose stored vector came from ``model``."""
    rows = db.execute(
        "SELECT r.id, e.embedding FROM recallable_messages AS r "
        "JOIN message_embeddings AS e ON e.message_id = r.id "
        "WHERE e.embedding_model = ? AND length(e.embedding) = ? ORDER BY r.id",
        [model, dimensions * 4],
    ).fetchall()
    return ids_and_vectors(rows, dimensions)


def unembedded_messages(
    db: Database, model: str, dimensions: int, ids: Sequence[int] | None = None
) -> list[tuple[int, str]]:
    """(id, content) of the recallable messages (among ``ids``, if given) with no vector
    from ``model``, oldest first."""
    where = ""
    arguments: list = [model, dimensions * 4]
    if ids is not None:
        if not len(ids):
            return []
        where = f"AND r.id IN ({','.join('?' * len(ids))})"
        arguments += [int(i) for i in ids]
    return db.execute(
        "SELECT r.id, r.content FROM recallable_messages AS r "
        "LEFT JOIN message_embeddings AS e ON e.message_id = r.id "
        "AND e.embedding_model = ? AND length(e.embedding) = ? "
        f"WHERE e.message_id IS NULL {where} ORDER BY r.id",
        arguments,
    ).fetchall()


def save_message_embeddings(
    db: Database, ids: Sequence[int], contents: Sequence[str], vectors: np.ndarray, model: str
) -> list[int]:
    """Store the vectors of messages whose text is still the one embedded; the ids
    stored."""
    stored = []
    with db.atomic():
        for message_id, content, vector in zip(ids, contents, vectors, strict=True):
            still = db.execute(
                "SELECT 1 FROM messages WHERE id = ? AND content = ?", [int(message_id), content]
            ).fetchone()
            if still is None:
                continue
            db.execute(
                "INSERT INTO message_embeddings (message_id, embedding, embedding_model) "
                "VALUES (?, ?, ?) ON CONFLICT (message_id) DO UPDATE SET "
                "embedding = excluded.embedding, embedding_model = excluded.embedding_model",
                [int(message_id), np.asarray(vector, dtype=np.float32).tobytes(), model],
            )
            stored.append(int(message_id))
    return stored


def message_facts(
    db: Database, ids: Sequence[int], now: str = "now"
) -> list[tuple[int, int, str, float, int, int, int]]:
    """``(id, conversation id, author, age in days, previous message id, next message
    id, written by the user)`` of the recallable messages among ``ids`` (for
    candidates found by meaning only)."""
    if not len(ids):
        return []
    marks = ",".join("?" * len(ids))
    return db.execute(
        f"""
        SELECT m.id, m.conversation_id, coalesce(m.author, ''),
               {db.dialect.days_since("?", "m.created_at")}, {_NEIGHBOURS}
        FROM recallable_messages AS m WHERE m.id IN ({marks}) ORDER BY m.id
        """,
        [now, *(int(i) for i in ids)],
    ).fetchall()


def memories_told_in_periods(
    db: Database, periods: Sequence[tuple[str, str]], limit: int
) -> list[int]:
    """Ids of memories learned from a message written within any of ``periods`` (a
    fact's date is the date it was said), at most ``limit``."""
    if not periods:
        return []
    within = " OR ".join("(m.created_at >= ? AND m.created_at < ?)" for _ in periods)
    rows = db.execute(
        f"""
        SELECT DISTINCT s.memory_id FROM messages AS m
        JOIN memory_sources AS s ON s.message_id = m.id
        WHERE {within} ORDER BY s.memory_id LIMIT ?
        """,
        [bound for period in periods for bound in period] + [int(limit)],
    ).fetchall()
    return [row[0] for row in rows]


def memories_from_messages(db: Database, message_ids: Sequence[int]) -> list[tuple[int, int]]:
    """``(memory id, message id)`` for every memory learned from one of ``message_ids``."""
    if not len(message_ids):
        return []
    marks = ",".join("?" * len(message_ids))
    return db.execute(
        f"SELECT memory_id, message_id FROM memory_sources WHERE message_id IN ({marks})",
        [int(i) for i in message_ids],
    ).fetchall()


def sources_of_forgotten(db: Database) -> frozenset[int]:
    """The messages forgotten memories were learned from: recall leaves them out, so
    what the user had forgotten does not come back through the words they said it in
    (restoring the memory brings them back). Forgotten memories are few; the status
    index finds them."""
    return frozenset(
        row[0]
        for row in db.execute(
            "SELECT s.message_id FROM memories AS m "
            "JOIN memory_sources AS s ON s.memory_id = m.id WHERE m.status = 'forgotten'"
        ).fetchall()
    )


def source_authors(db: Database, memory_ids: Sequence[int]) -> dict[int, list[str]]:
    """The authors (those recorded) of the messages each of ``memory_ids`` was learned from."""
    if not len(memory_ids):
        return {}
    marks = ",".join("?" * len(memory_ids))
    rows = db.execute(
        f"SELECT s.memory_id, m.author FROM memory_sources AS s "
        f"JOIN messages AS m ON m.id = s.message_id "
        f"WHERE s.memory_id IN ({marks}) AND m.author IS NOT NULL",
        [int(i) for i in memory_ids],
    ).fetchall()
    authors: dict[int, list[str]] = {}
    for memory_id, author in rows:
        authors.setdefault(memory_id, []).append(author)
    return authors


def event_age(
    db: Database,
    match: str,
    now: str = "now",
    by_user: bool = False,
    excluded: Sequence[int] = (),
) -> float | None:
    """The age in days (at ``now``) of the recallable message that best tells an event
    (the FTS5 expression ``match`` of its words, BM25 on the message's own words), or
    None if no message does; ``by_user``: among the user's messages only ("before I
    moved" is something the user told); never one of ``excluded`` (the chat's recent
    turns, the question itself among them)."""
    marks = ",".join("?" * len(excluded))
    where = f"""{"AND m.role = 'user'" if by_user else ""}
              {f"AND m.id NOT IN ({marks})" if excluded else ""}"""
    hits, hit_params = db.dialect.full_text.message_scores(match, 0.0)
    row = db.execute(
        f"""
        SELECT {db.dialect.days_since("?", "m.created_at")}
        FROM ({hits}) AS h JOIN recallable_messages AS m ON m.id = h.id
        WHERE TRUE {where}
        ORDER BY h.score, h.id LIMIT 1
        """,
        [now, *hit_params, *excluded],
    ).fetchone()
    return None if row is None else float(row[0])
