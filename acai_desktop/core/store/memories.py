"""Reading memories, their sources, their history and their embeddings.

These run on the database thread with the connection (see :meth:`Store.run`); the
writes are in :mod:`~acai_desktop.core.store.memory_writes` (rows and history) and
:mod:`~acai_desktop.core.store.memory_changes` (one named transaction per change).
Every column list derives from :class:`MemoryItem` (:data:`MEMORY_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records.memories import (
    MEMORY_COLUMNS,
    MEMORY_CONVERTERS,
    MemoryEvent,
    MemoryItem,
    same_value,
)
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store

if TYPE_CHECKING:
    # numpy loads where vectors are encoded or decoded: the window opens the profile
    # (which imports this module) before numpy has loaded (docs/architecture.md, start-up).
    import numpy as np

SELECT_COLUMNS = ", ".join(MEMORY_COLUMNS)
#: A LIMIT no table reaches, for an OFFSET without a limit (both engines need a LIMIT
#: before an OFFSET, and read it as a 64-bit integer).
ALL_ROWS = 2**63 - 1
# SQLite caps the number of bound parameters; 500 at a time is far below any cap.
_CHUNK = 500


def encode_embedding(vector: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def decode_embedding(blob: bytes) -> np.ndarray:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float32)


# The columns whose SQLite value needs converting (flags, enums, JSON), by position:
# the others go into the record as read.
_CONVERTED = tuple(
    (position, convert)
    for position, convert in enumerate(MEMORY_CONVERTERS)
    if convert is not same_value
)


def memory_from_row(row: Sequence) -> MemoryItem:
    """The record of a row selected as :data:`SELECT_COLUMNS` (the fields' order), as
    :meth:`MemoryItem.from_row` makes it, without a dict per row."""
    if len(row) != len(MEMORY_CONVERTERS):
        raise ValueError(f"a memory row has {len(MEMORY_CONVERTERS)} columns, not {len(row)}")
    values = list(row)
    for position, convert in _CONVERTED:
        values[position] = convert(values[position])
    return MemoryItem(*values)


@dataclass(frozen=True)
class MemoryFilter:
    """What ``list`` returns; ``None`` means "any"."""

    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = ("active", "conflict", "temporary")
    category: str | None = None
    pinned: bool | None = None
    conversation_id: int | None = None
    text: str | None = None  # case-insensitive substring of the content
    limit: int | None = None
    offset: int = 0


def fetch_memory(db: Database, memory_id: int) -> MemoryItem:
    """The memory's record. Inside a write transaction on PostgreSQL the row is locked
    until it ends: a change reads, decides (a user's edit wins over a processor's, a
    pinned memory is left alone) and writes, and another computer's change of the same
    memory waits, then reads the row as this one left it. (On SQLite the one write lock
    does the same.)"""
    sql = f"SELECT {SELECT_COLUMNS} FROM memories WHERE id = ?{db.dialect.for_update(db)}"
    row = db.execute(sql, [memory_id]).fetchone()
    if row is None:
        raise NotFoundError(f"No memory with id {memory_id}.")
    return memory_from_row(row)


def memories_by_id(db: Database, ids: Iterable[int]) -> dict[int, MemoryItem]:
    """The records of ``ids`` (unknown ids left out), in id order, in one query per 500."""
    wanted = sorted({int(i) for i in ids})
    found: dict[int, MemoryItem] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT {SELECT_COLUMNS} FROM memories WHERE id IN ({marks}) ORDER BY id", chunk
        ):
            item = memory_from_row(row)
            found[item.id] = item
    return found


def _filter_clause(db: Database, where: MemoryFilter) -> tuple[str, list]:
    """``WHERE ...`` (or "") and its parameters for ``where``."""
    clauses, params = [], []
    if where.kinds:
        clauses.append(f"kind IN ({', '.join('?' for _ in where.kinds)})")
        params.extend(str(k) for k in where.kinds)
    if where.statuses:
        clauses.append(f"status IN ({', '.join('?' for _ in where.statuses)})")
        params.extend(str(s) for s in where.statuses)
    if where.category is not None:
        clauses.append("lower(category) = lower(?)")
        params.append(where.category)
    if where.pinned is not None:
        clauses.append("pinned = ?")
        params.append(bool(where.pinned))
    if where.conversation_id is not None:
        clauses.append("conversation_id = ?")
        params.append(where.conversation_id)
    if where.text:
        clauses.append(db.dialect.contains("lower(content)", "lower(?)"))
        params.append(where.text)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def list_memories(db: Database, where: MemoryFilter) -> list[MemoryItem]:
    condition, params = _filter_clause(db, where)
    sql = f"SELECT {SELECT_COLUMNS} FROM memories{condition}"
    sql += " ORDER BY pinned DESC, updated_at DESC, id DESC"
    if where.limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params.extend([where.limit, where.offset])
    elif where.offset:
        sql += " LIMIT ? OFFSET ?"
        params.extend([ALL_ROWS, where.offset])
    return [memory_from_row(row) for row in db.execute(sql, params).fetchall()]


def count_memories(db: Database, where: MemoryFilter) -> int:
    """How many memories ``where`` matches, its limit and offset aside."""
    condition, params = _filter_clause(db, where)
    return db.execute(f"SELECT count(*) FROM memories{condition}", params).fetchone()[0]


def memory_history(db: Database, memory_id: int) -> list[MemoryEvent]:
    fetch_memory(db, memory_id)  # NotFoundError for an unknown id
    cursor = db.execute(
        "SELECT id, memory_id, at, actor, action, before, after FROM memory_events "
        "WHERE memory_id = ? ORDER BY id",
        [memory_id],
    )
    names = [d[0] for d in cursor.description]
    return [MemoryEvent.from_row(dict(zip(names, row, strict=True))) for row in cursor]


def sources_of(db: Database, memory_ids: Sequence[int]) -> dict[int, list[int]]:
    """The message ids each memory came from, in id order."""
    result: dict[int, list[int]] = {int(i): [] for i in memory_ids}
    wanted = sorted(result)
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for memory_id, message_id in db.execute(
            f"SELECT memory_id, message_id FROM memory_sources WHERE memory_id IN ({marks}) "
            "ORDER BY memory_id, message_id",
            chunk,
        ):
            result[memory_id].append(message_id)
    return result


def memories_sourced_from(db: Database, message_ids: Sequence[int]) -> list[MemoryItem]:
    """Memories whose sources include any of ``message_ids``, in id order."""
    if not message_ids:
        return []
    marks = ",".join("?" * len(message_ids))
    rows = db.execute(
        f"SELECT DISTINCT memory_id FROM memory_sources WHERE message_id IN ({marks})",
        list(message_ids),
    ).fetchall()
    return list(memories_by_id(db, [row[0] for row in rows]).values())


def messages_created_at(db: Database, message_ids: Iterable[int]) -> dict[int, str]:
    """``created_at`` of each of ``message_ids`` that exists in this profile."""
    wanted = sorted({int(i) for i in message_ids})
    found: dict[int, str] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(
            db.execute(f"SELECT id, created_at FROM messages WHERE id IN ({marks})", chunk)
        )
    return found


def memory_ids_by_uid(db: Database) -> dict[str, int]:
    """Every memory's export uid (``meta.uid``) → id, for import's duplicate check."""
    return {
        uid: memory_id
        for memory_id, uid in db.execute(
            f"SELECT id, {db.dialect.json_text('meta', 'uid')} FROM memories "
            f"WHERE {db.dialect.json_text('meta', 'uid')} IS NOT NULL"
        )
    }


def last_event_is(db: Database, memory_ids: Sequence[int], action: str) -> set[int]:
    """The memories among ``memory_ids`` whose latest history event is ``action``."""
    if not len(memory_ids):
        return set()
    marks = ",".join("?" * len(memory_ids))
    rows = db.execute(
        f"""SELECT e.memory_id FROM memory_events AS e
        WHERE e.id IN (SELECT max(id) FROM memory_events WHERE memory_id IN ({marks})
                       GROUP BY memory_id)
        AND e.action = ?""",
        [*(int(i) for i in memory_ids), action],
    )
    return {row[0] for row in rows}


def memory_written_by(db: Database, key: str) -> int | None:
    """The memory a keyed write (one step of one job) made or touched, if it ran."""
    row = db.execute("SELECT memory_id FROM memory_write_keys WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


# -- embeddings ------------------------------------------------------------------


def fetch_embedding(db: Database, memory_id: int) -> tuple[np.ndarray | None, str | None]:
    row = db.execute(
        "SELECT embedding, embedding_model FROM memories WHERE id = ?", [memory_id]
    ).fetchone()
    if row is None or row[0] is None:
        return None, row[1] if row else None
    return decode_embedding(row[0]), row[1]


def ids_and_vectors(rows: list, dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """``(id, float32 blob)`` rows as an id array and a ``len(rows) × dimensions`` matrix."""
    import numpy as np

    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dimensions), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, vectors.reshape(len(rows), dimensions)


def embeddings_with_status(
    db: Database, status: str, model: str, dimensions: int, kinds: Sequence[str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the memories with ``status`` (and of ``kinds``) whose embedding
    came from ``model``: the active ones fill the index, the temporary ones (not in it)
    are searched when reconciling a new fact."""
    sql = (
        "SELECT id, embedding FROM memories WHERE status = ? "
        "AND embedding_model = ? AND length(embedding) = ?"
    )
    params: list = [status, model, dimensions * 4]
    if kinds:
        sql += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params.extend(kinds)
    return ids_and_vectors(db.execute(sql + " ORDER BY id", params).fetchall(), dimensions)


def stale_embeddings(db: Database, model: str, dimensions: int) -> list[tuple[int, str, str]]:
    """(id, content, status) of memories with no embedding from ``model``, active first."""
    return db.execute(
        "SELECT id, content, status FROM memories "
        "WHERE embedding IS NULL OR embedding_model IS DISTINCT FROM ? OR length(embedding) != ? "
        "ORDER BY status != 'active', id",
        [model, dimensions * 4],
    ).fetchall()


class MemoryRepository:
    """Read-only async facade for services on the event loop.

    Every write goes through MemoryService, which keeps the vector index, the events and
    the protection of pinned and user-edited memories in step with the row; a write
    API here would be a way around all three."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, memory_id: int) -> MemoryItem:
        return await self.store.run(fetch_memory, memory_id)

    async def list(self, where: MemoryFilter | None = None) -> list[MemoryItem]:
        return await self.store.run(list_memories, where or MemoryFilter())

    async def count(self, where: MemoryFilter | None = None) -> int:
        return await self.store.run(count_memories, where or MemoryFilter())

    async def history(self, memory_id: int) -> list[MemoryEvent]:
        return await self.store.run(memory_history, memory_id)
