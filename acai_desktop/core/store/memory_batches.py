"""Set-at-a-time memory SQL: bulk insert, import of recorded rows, index loading, usage.

Like :mod:`acai_desktop.core.store.memories` these run on the database thread inside
the caller's transaction; they exist separately because they trade the one-row
functions' simplicity for one statement per table, which is what makes ingesting
thousands of memories (evaluation, import) fast.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import numpy as np
from sqlite_utils import Database

from acai_desktop.core.clock import now_iso
from acai_desktop.core.records import Actor, MemoryItem
from acai_desktop.core.store.memories import (
    HISTORY_COLUMNS,
    SELECT_COLUMNS,
    _history_view,
    _prepare,
    _write_event,
    decode_embedding,
)

_COLUMN_NAMES = [c.strip() for c in SELECT_COLUMNS.split(",")]


def _items_between(db: Database, first: int, last: int) -> list[MemoryItem]:
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE id BETWEEN ? AND ? ORDER BY id",
        [first, last],
    ).fetchall()
    return [MemoryItem.from_row(dict(zip(_COLUMN_NAMES, row, strict=True))) for row in rows]


def insert_memories(
    db: Database,
    rows: Sequence[dict],
    *,
    actor: Actor | str,
    sources: Sequence[Iterable[int]] | None = None,
    action: str = "created",
    at: str | None = None,
) -> list[MemoryItem]:
    """Insert many memories, their sources and 'created' events (caller's transaction).

    Every row must set the same columns. Ids are given explicitly from ``max(id) + 1``
    on, exactly as SQLite would assign them, so one ``executemany`` per table is enough
    and the new records can be read back by range.
    """
    if not rows:
        return []
    at = at or now_iso()
    prepared = [_prepare(row) for row in rows]
    columns = list(prepared[0])
    if any(list(row) != columns for row in prepared):
        raise ValueError("insert_memories: every row must set the same columns")
    first = db.execute("SELECT coalesce(max(id), 0) + 1 FROM memories").fetchone()[0]
    ids = range(first, first + len(prepared))
    names = ", ".join(["id", *columns, "created_at", "updated_at"])
    marks = ", ".join("?" for _ in range(len(columns) + 3))
    db.conn.executemany(
        f"INSERT INTO memories ({names}) VALUES ({marks})",
        ([memory_id, *row.values(), at, at] for memory_id, row in zip(ids, prepared, strict=True)),
    )
    if sources is not None:
        db.conn.executemany(
            "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
            (
                (memory_id, message_id)
                for memory_id, message_ids in zip(ids, sources, strict=True)
                for message_id in message_ids
            ),
        )
    items = _items_between(db, ids[0], ids[-1])
    db.conn.executemany(
        "INSERT INTO memory_events (memory_id, at, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, NULL, ?)",
        (
            (
                item.id,
                at,
                str(actor),
                action,
                json.dumps(_history_view(item, HISTORY_COLUMNS), ensure_ascii=False),
            )
            for item in items
        ),
    )
    return items


def insert_recorded_memory(
    db: Database,
    values: dict,
    *,
    created_at: str,
    updated_at: str,
    history: Sequence[dict],
    sources: Iterable[int],
    actor: Actor | str,
    action: str = "imported",
    at: str | None = None,
) -> MemoryItem:
    """Insert a memory that already has a past (an import), keeping its timestamps and
    its history events as recorded, then one ``action`` event for the arrival itself.

    ``history`` items are dicts with ``at``, ``actor``, ``action``, ``before``, ``after``.
    """
    at = at or now_iso()
    row = _prepare(values)
    names = ", ".join([*row, "created_at", "updated_at"])
    marks = ", ".join("?" for _ in range(len(row) + 2))
    cursor = db.execute(
        f"INSERT INTO memories ({names}) VALUES ({marks})",
        [*row.values(), created_at, updated_at],
    )
    memory_id = cursor.lastrowid
    for message_id in sources:
        db.execute(
            "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
            [memory_id, message_id],
        )
    for event in history:
        _write_event(
            db,
            memory_id,
            event["actor"],
            event["action"],
            event.get("before"),
            event.get("after"),
            event["at"],
        )
    item = fetch_memories(db, [memory_id])[0]
    _write_event(db, memory_id, actor, action, None, _history_view(item, HISTORY_COLUMNS), at)
    return item


def fetch_memories(db: Database, ids: Sequence[int]) -> list[MemoryItem]:
    """The records of ``ids``, in the order given; unknown ids are left out."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE id IN ({marks})", [int(i) for i in ids]
    ).fetchall()
    by_id = {
        item.id: item
        for item in (MemoryItem.from_row(dict(zip(_COLUMN_NAMES, r, strict=True))) for r in rows)
    }
    return [by_id[int(i)] for i in ids if int(i) in by_id]


def memories_from_messages(db: Database, message_ids: Sequence[int]) -> list[MemoryItem]:
    if not message_ids:
        return []
    marks = ",".join("?" * len(message_ids))
    rows = db.execute(
        f"SELECT DISTINCT memory_id FROM memory_sources WHERE message_id IN ({marks}) "
        "ORDER BY memory_id",
        list(message_ids),
    ).fetchall()
    return fetch_memories(db, [row[0] for row in rows])


def fetch_embedding(db: Database, memory_id: int) -> tuple[np.ndarray | None, str | None]:
    row = db.execute(
        "SELECT embedding, embedding_model FROM memories WHERE id = ?", [memory_id]
    ).fetchone()
    if row is None or row[0] is None:
        return None, row[1] if row else None
    return decode_embedding(row[0]), row[1]


def active_embeddings(db: Database, model: str, dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the active memories whose embedding came from ``model``."""
    rows = db.execute(
        "SELECT id, embedding FROM memories WHERE status = 'active' AND embedding_model = ? "
        "AND length(embedding) = ? ORDER BY id",
        [model, dimensions * 4],
    ).fetchall()
    return ids_and_vectors(rows, dimensions)


def ids_and_vectors(rows: list, dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """``(id, float32 blob)`` rows as an id array and a ``len(rows) × dimensions`` matrix."""
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dimensions), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, vectors.reshape(len(rows), dimensions)


def stale_embeddings(db: Database, model: str, dimensions: int) -> list[tuple[int, str, str]]:
    """(id, content, status) of memories with no embedding from ``model``, active first."""
    return db.execute(
        "SELECT id, content, status FROM memories "
        "WHERE embedding IS NULL OR embedding_model IS NOT ? OR length(embedding) != ? "
        "ORDER BY status != 'active', id",
        [model, dimensions * 4],
    ).fetchall()


def set_embeddings(
    db: Database,
    ids: Sequence[int],
    vectors: np.ndarray,
    model: str,
    contents: Sequence[str] | None = None,
) -> None:
    """Store vectors; with ``contents``, only where the text is still the one embedded
    (a re-embedding batch must not overwrite the vector of a memory edited meanwhile)."""
    blobs = [np.asarray(vector, dtype=np.float32).tobytes() for vector in vectors]
    if contents is None:
        db.conn.executemany(
            "UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ?",
            zip(blobs, [model] * len(blobs), [int(i) for i in ids], strict=True),
        )
        return
    db.conn.executemany(
        "UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ? AND content = ?",
        zip(blobs, [model] * len(blobs), [int(i) for i in ids], contents, strict=True),
    )


def mark_used(db: Database, ids: Sequence[int], at: str) -> None:
    """Count one use of each memory; usage is bookkeeping, so it writes no history."""
    db.conn.executemany(
        "UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id = ?",
        ((at, int(memory_id)) for memory_id in ids),
    )


def messages_created_at(db: Database, message_ids: Iterable[int]) -> dict[int, str]:
    """``created_at`` of each of ``message_ids`` that exists in this profile."""
    wanted = sorted({int(i) for i in message_ids})
    found: dict[int, str] = {}
    # SQLite caps the number of bound parameters; 500 at a time is far below any cap.
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
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
            "SELECT id, json_extract(meta, '$.uid') FROM memories "
            "WHERE json_extract(meta, '$.uid') IS NOT NULL"
        )
    }


def sources_of(db: Database, memory_ids: Sequence[int]) -> dict[int, list[int]]:
    result: dict[int, list[int]] = {int(i): [] for i in memory_ids}
    for memory_id, message_id in db.execute(
        "SELECT memory_id, message_id FROM memory_sources ORDER BY memory_id, message_id"
    ):
        if memory_id in result:
            result[memory_id].append(message_id)
    return result


def link_memories(db: Database, links: Iterable[tuple[int, int | None, dict]]) -> None:
    """Set ``superseded_by`` and ``meta`` of just-imported memories, whose history
    already records how they came to be linked (so no event is written)."""
    db.conn.executemany(
        "UPDATE memories SET superseded_by = ?, meta = ? WHERE id = ?",
        (
            (superseded_by, json.dumps(meta, ensure_ascii=False), memory_id)
            for memory_id, superseded_by, meta in links
        ),
    )


def temporary_embeddings(
    db: Database, model: str, dimensions: int, kinds: Sequence[str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the temporary memories (not in the vector index, which holds
    only active ones) whose embedding came from ``model``."""
    sql = (
        "SELECT id, embedding FROM memories WHERE status = 'temporary' "
        "AND embedding_model = ? AND length(embedding) = ?"
    )
    params: list = [model, dimensions * 4]
    if kinds:
        sql += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params.extend(kinds)
    rows = db.execute(sql + " ORDER BY id", params).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dimensions), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, vectors.reshape(len(rows), dimensions)


def memory_written_by(db: Database, key: str) -> int | None:
    """The memory a keyed write (one step of one job) made or touched, if it ran."""
    row = db.execute("SELECT memory_id FROM memory_write_keys WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def record_write_key(db: Database, key: str, memory_id: int) -> None:
    """Remember that the keyed write happened (caller's transaction, with the write)."""
    db.execute(
        "INSERT INTO memory_write_keys (key, memory_id, at) VALUES (?, ?, ?)",
        [key, memory_id, now_iso()],
    )
