"""Repository for memories, their sources and their history (memory_events).

Functions prefixed ``_`` run on the database thread with the connection; the public
async methods hand them to :meth:`Store.run`. Every write that changes a memory writes
its ``memory_events`` row in the same transaction, so history can't miss a change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlite_utils import Database

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records import Actor, MemoryEvent, MemoryItem
from acai_desktop.core.store.database import Store

# Columns a caller may set through insert/update (id and timestamps are ours).
WRITABLE_COLUMNS = frozenset(
    {
        "kind",
        "content",
        "category",
        "confidence",
        "importance",
        "pinned",
        "status",
        "origin",
        "user_edited",
        "superseded_by",
        "conversation_id",
        "last_used_at",
        "use_count",
        "meta",
    }
)
# Columns the history records (the embedding is derived data, not history).
HISTORY_COLUMNS = WRITABLE_COLUMNS - {"last_used_at", "use_count", "meta"}

SELECT_COLUMNS = (
    "id, kind, content, category, confidence, importance, pinned, status, origin, "
    "user_edited, superseded_by, conversation_id, created_at, updated_at, last_used_at, "
    "use_count, embedding_model, meta"
)


def encode_embedding(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def decode_embedding(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


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


def _prepare(values: dict) -> dict:
    unknown = set(values) - WRITABLE_COLUMNS - {"embedding", "embedding_model"}
    if unknown:
        raise ValueError(f"not memory columns: {sorted(unknown)}")
    prepared = dict(values)
    if "meta" in prepared:
        prepared["meta"] = json.dumps(prepared["meta"] or {}, ensure_ascii=False)
    for flag in ("pinned", "user_edited"):
        if flag in prepared:
            prepared[flag] = int(bool(prepared[flag]))
    for enum_column in ("kind", "status", "origin"):
        if enum_column in prepared and prepared[enum_column] is not None:
            prepared[enum_column] = str(prepared[enum_column])
    if "embedding" in prepared and prepared["embedding"] is not None:
        prepared["embedding"] = encode_embedding(prepared["embedding"])
    return prepared


def _history_view(item: MemoryItem, columns: Iterable[str]) -> dict:
    public = item.to_public_dict()
    return {column: public[column] for column in columns if column in public}


def _fetch(db: Database, memory_id: int) -> MemoryItem:
    row = db.execute(f"SELECT {SELECT_COLUMNS} FROM memories WHERE id = ?", [memory_id]).fetchone()
    if row is None:
        raise NotFoundError(f"No memory with id {memory_id}.")
    names = [c.strip() for c in SELECT_COLUMNS.split(",")]
    return MemoryItem.from_row(dict(zip(names, row, strict=True)))


def _write_event(
    db: Database,
    memory_id: int,
    actor: Actor | str,
    action: str,
    before: dict | None,
    after: dict | None,
    at: str,
) -> None:
    db.execute(
        "INSERT INTO memory_events (memory_id, at, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            memory_id,
            at,
            str(actor),
            action,
            json.dumps(before, ensure_ascii=False) if before is not None else None,
            json.dumps(after, ensure_ascii=False) if after is not None else None,
        ],
    )


def insert_memory(
    db: Database,
    values: dict,
    *,
    actor: Actor | str,
    sources: Iterable[int] = (),
    action: str = "created",
    at: str | None = None,
) -> MemoryItem:
    """Insert one memory with its sources and its 'created' event (caller's transaction)."""
    at = at or now_iso()
    row = _prepare(values)
    row.setdefault("created_at", at)
    row.setdefault("updated_at", at)
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    cursor = db.execute(f"INSERT INTO memories ({columns}) VALUES ({marks})", list(row.values()))
    memory_id = cursor.lastrowid
    for message_id in sources:
        db.execute(
            "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
            [memory_id, message_id],
        )
    item = _fetch(db, memory_id)
    _write_event(db, memory_id, actor, action, None, _history_view(item, HISTORY_COLUMNS), at)
    return item


def update_memory(
    db: Database,
    memory_id: int,
    changes: dict,
    *,
    actor: Actor | str,
    action: str,
    guard: Callable[[MemoryItem], None] | None = None,
    at: str | None = None,
) -> MemoryItem:
    """Apply ``changes`` and record the event (caller's transaction).

    ``guard(current)`` runs on the row as it is inside the transaction and may raise to
    refuse the change; because every write goes through the one database thread, the
    check and the write can't be split by another writer.
    """
    at = at or now_iso()
    current = _fetch(db, memory_id)
    if guard is not None:
        guard(current)
    row = _prepare(changes)
    row["updated_at"] = at
    assignments = ", ".join(f"{column} = ?" for column in row)
    db.execute(f"UPDATE memories SET {assignments} WHERE id = ?", [*row.values(), memory_id])
    updated = _fetch(db, memory_id)
    recorded = [c for c in changes if c in HISTORY_COLUMNS]
    if recorded:
        _write_event(
            db,
            memory_id,
            actor,
            action,
            _history_view(current, recorded),
            _history_view(updated, recorded),
            at,
        )
    return updated


def _filter_clause(where: MemoryFilter) -> tuple[str, list]:
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
        params.append(int(where.pinned))
    if where.conversation_id is not None:
        clauses.append("conversation_id = ?")
        params.append(where.conversation_id)
    if where.text:
        clauses.append("instr(lower(content), lower(?)) > 0")
        params.append(where.text)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def list_memories(db: Database, where: MemoryFilter) -> list[MemoryItem]:
    condition, params = _filter_clause(where)
    sql = f"SELECT {SELECT_COLUMNS} FROM memories{condition}"
    sql += " ORDER BY pinned DESC, updated_at DESC, id DESC"
    if where.limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params.extend([where.limit, where.offset])
    elif where.offset:
        sql += " LIMIT -1 OFFSET ?"
        params.append(where.offset)
    names = [c.strip() for c in SELECT_COLUMNS.split(",")]
    return [
        MemoryItem.from_row(dict(zip(names, row, strict=True)))
        for row in db.execute(sql, params).fetchall()
    ]


def count_memories(db: Database, where: MemoryFilter) -> int:
    """How many memories ``where`` matches, its limit and offset aside."""
    condition, params = _filter_clause(where)
    return db.execute(f"SELECT count(*) FROM memories{condition}", params).fetchone()[0]


def add_sources(db: Database, memory_id: int, message_ids: Iterable[int]) -> None:
    for message_id in message_ids:
        db.execute(
            "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
            [memory_id, message_id],
        )


def memory_history(db: Database, memory_id: int) -> list[MemoryEvent]:
    _fetch(db, memory_id)  # NotFoundError for an unknown id
    cursor = db.execute(
        "SELECT id, memory_id, at, actor, action, before, after FROM memory_events "
        "WHERE memory_id = ? ORDER BY id",
        [memory_id],
    )
    names = [d[0] for d in cursor.description]
    return [MemoryEvent.from_row(dict(zip(names, row, strict=True))) for row in cursor]


class MemoryRepository:
    """Read-only async facade for services on the event loop.

    Every write goes through MemoryService, which keeps the vector index, the events and
    the protection of pinned and user-edited memories in step with the row; a write
    API here would be a way around all three."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, memory_id: int) -> MemoryItem:
        return await self.store.run(_fetch, memory_id)

    async def list(self, where: MemoryFilter | None = None) -> list[MemoryItem]:
        return await self.store.run(list_memories, where or MemoryFilter())

    async def count(self, where: MemoryFilter | None = None) -> int:
        return await self.store.run(count_memories, where or MemoryFilter())

    async def history(self, memory_id: int) -> list[MemoryEvent]:
        return await self.store.run(memory_history, memory_id)
