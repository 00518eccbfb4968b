"""What the ranking reads of every message besides its words and its vector, in memory.

A recalled message is scored with its conversation, its author, its age, whether the
user wrote it, and the messages just before and after it in its conversation (see
:func:`acai_desktop.core.store.episodes.message_hits`). Reading those from SQLite for
each candidate cost as much as the full-text query that found them (a row, the
conversation's row and two index seeks per candidate, a hundred candidates a search).
:class:`MessageFacts` holds them for every message of the profile (any role or status:
a message's neighbours are any message of its conversation, as the SQL's are) and
answers a search's candidates with array lookups.

It follows the database by itself, whatever wrote: each search first reads the
messages written since the last one (``id`` above the highest it knows, one seek on
the primary key, no row when nothing was written) in the search's own read
transaction, so the facts are those of the search's snapshot. That holds on SQLite,
where every writer queues on one lock and a new message's id is above every id
committed before it. What a new id cannot tell:

- A deleted conversation: its messages are dropped by :meth:`forget` (the conversation
  service's delete), so that a later message given one of their ids back (SQLite
  reuses the highest ids) is read anew. A deletion nobody announced is still caught
  when the highest id went down (everything is read again).
- The facts kept are the ones that never change once a message is written
  (conversation, author, time, role); a message's neighbours change only when a
  message is added to or removed from its conversation. Whether a message is still
  recallable (status, hidden, its chat temporary) changes with updates: that is not
  kept here; the full-text index (kept by triggers) and the database say it.

On PostgreSQL several computers write at once and an id becomes visible when its
transaction commits, not in id order, so a cursor would pass over rows: the ranking
reads the facts from SQL there (:func:`available`).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.dialect import is_postgres

# A row of the ranking: (id, conversation id, author, age in days, previous message
# id, next message id, written by the user), as episodes.message_facts gives it.
FactsRow = tuple[int, int, str, float, int, int, bool]


def available(db: Database) -> bool:
    """Whether the facts can follow this store by their id cursor (SQLite only)."""
    return not is_postgres(db)


class MessageFacts:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._clear()

    def __len__(self) -> int:
        return len(self._row_of)

    def _clear(self) -> None:
        self._cursor = 0  # every message with an id up to this one has been read
        self._row_of: dict[int, int] = {}
        self._free: list[int] = []  # rows of forgotten messages, for reuse
        self._messages_of: dict[int, list[int]] = {}  # conversation -> its ids, ascending
        self._authors: list[str] = []
        self._author_code: dict[str, int] = {}
        self._allocate(64)

    def _allocate(self, capacity: int) -> None:
        self._conversation = np.full(capacity, -1, np.int64)
        self._julian = np.full(capacity, np.nan, np.float64)  # julianday(created_at)
        self._author = np.zeros(capacity, np.int64)
        self._by_user = np.zeros(capacity, bool)
        self._previous = np.full(capacity, -1, np.int64)
        self._next = np.full(capacity, -1, np.int64)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self._conversation,
            self._julian,
            self._author,
            self._by_user,
            self._previous,
            self._next,
        )

    def sync(self, db: Database, now: str) -> float | None:
        """Read the messages written since the last call (on the thread and in the
        read transaction of the search that follows), and return ``julianday(now)``
        as the database computes it (ages are differences of the two, to the bit)."""
        with self.lock:
            now_julian, top = db.execute(
                "SELECT julianday(?), (SELECT max(id) FROM messages)", [now]
            ).fetchone()
            top = top or 0
            if top < self._cursor:
                # Messages at the top were deleted unannounced: their ids may come back.
                self._clear()
            if top > self._cursor:
                rows = db.execute(
                    "SELECT id, conversation_id, coalesce(author, ''), julianday(created_at), "
                    "role = 'user' FROM messages WHERE id > ? ORDER BY id",
                    [self._cursor],
                ).fetchall()
                for row in rows:
                    self._add(*row)
                self._cursor = top
            return now_julian

    def forget(self, message_ids) -> None:
        """Messages deleted from the database (their conversation was): their ids may
        be given to new messages."""
        with self.lock:
            for message_id in map(int, message_ids):
                row = self._row_of.pop(message_id, None)
                if row is None:
                    continue
                self._free.append(row)
                ids = self._messages_of.get(int(self._conversation[row]), [])
                position = bisect_left(ids, message_id)
                if position < len(ids) and ids[position] == message_id:
                    del ids[position]
                    before = ids[position - 1] if position else -1
                    after = ids[position] if position < len(ids) else -1
                    if before >= 0:
                        self._next[self._row_of[before]] = after
                    if after >= 0:
                        self._previous[self._row_of[after]] = before
                    if not ids:
                        del self._messages_of[int(self._conversation[row])]
            if self._row_of:
                self._cursor = min(self._cursor, max(self._row_of))
            else:
                self._cursor = 0

    def rows(self, ids: list[int], now_julian: float | None) -> tuple[list[FactsRow], list[int]]:
        """The ranking's row of each message of ``ids`` that is known, in the order of
        ``ids``, and the ids that are not (read from SQL by the caller)."""
        with self.lock:
            found = np.fromiter(map(self._row_of.get, ids, repeat(-1)), np.int64, len(ids))
            missing: list[int] = []
            if len(found) and found.min() < 0:
                rows = found.tolist()
                missing = [i for i, row in zip(ids, rows, strict=True) if row < 0]
                ids = [i for i, row in zip(ids, rows, strict=True) if row >= 0]
                found = found[found >= 0]
            if now_julian is None:
                age = np.full(len(found), np.nan)
            else:
                # max(julianday(now) - julianday(created_at), 0), as the SQL computes it
                # (a NaN, for a date it could not read, stays NaN as its NULL did).
                age = np.maximum(now_julian - self._julian.take(found), 0.0)
            authors = self._authors
            facts = list(
                zip(
                    ids,
                    self._conversation.take(found).tolist(),
                    [authors[code] for code in self._author.take(found).tolist()],
                    age.tolist(),
                    self._previous.take(found).tolist(),
                    self._next.take(found).tolist(),
                    self._by_user.take(found).tolist(),
                    strict=True,
                )
            )
            return facts, missing

    def _add(self, message_id: int, conversation_id: int, author: str, julian, by_user) -> None:
        row = self._row_of.get(message_id)
        if row is None:
            row = self._free.pop() if self._free else len(self._row_of)
            if row >= len(self._conversation):
                self._grow()
            self._row_of[message_id] = row
        code = self._author_code.get(author)
        if code is None:
            code = self._author_code[author] = len(self._authors)
            self._authors.append(author)
        self._conversation[row] = conversation_id
        self._julian[row] = np.nan if julian is None else julian
        self._author[row] = code
        self._by_user[row] = bool(by_user)
        ids = self._messages_of.setdefault(conversation_id, [])
        if not ids or message_id > ids[-1]:
            position = len(ids)
            ids.append(message_id)
        else:
            position = bisect_left(ids, message_id)
            if ids[position] != message_id:
                ids.insert(position, message_id)
        before = ids[position - 1] if position else -1
        after = ids[position + 1] if position + 1 < len(ids) else -1
        self._previous[row] = before
        self._next[row] = after
        if before >= 0:
            self._next[self._row_of[before]] = message_id
        if after >= 0:
            self._previous[self._row_of[after]] = message_id

    def _grow(self) -> None:
        old = self._arrays()
        count = len(old[0])
        self._allocate(count * 2)
        for new, previous in zip(self._arrays(), old, strict=True):
            new[:count] = previous


class MessageIndex(VectorIndex):
    """The vectors of recallable messages (a :class:`VectorIndex`) and, beside them, the
    facts the ranking reads of every message (:class:`MessageFacts`)."""

    def __init__(self, dimensions: int) -> None:
        super().__init__(dimensions)
        self.facts = MessageFacts()


@dataclass(frozen=True)
class FactsAt:
    """The facts as one search sees them: synced in its read transaction, ages counted
    from its moment."""

    facts: MessageFacts
    now_julian: float | None

    def rows(self, ids: list[int]) -> tuple[list[FactsRow], list[int]]:
        return self.facts.rows(ids, self.now_julian)


def read_ahead(db: Database, facts: MessageFacts) -> None:
    """Read every message's facts now (in the background after start-up), not in the
    first search (at 50,000 messages a tenth of a second)."""
    if available(db):
        facts.sync(db, "now")


def facts_for_search(db: Database, message_index: VectorIndex | None, now: str) -> FactsAt | None:
    """The message facts brought up to this search's snapshot, or None where the
    ranking reads them from SQL (a bare index, or PostgreSQL: see :func:`available`)."""
    if not isinstance(message_index, MessageIndex) or not available(db):
        return None
    return FactsAt(message_index.facts, message_index.facts.sync(db, now))
