"""Writing memory rows: insert, update, history, sources, embeddings, usage.

These run on the database thread inside the caller's transaction. Every write that
changes what a memory says writes its ``memory_events`` row in the same transaction, so
history can't miss a change. The one-row functions are simple; the set-at-a-time ones
(:func:`insert_memories`, :func:`set_embeddings`, :func:`mark_used`) use one statement
per table, which is what makes ingesting thousands of memories fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from acai_desktop.core.clock import now_iso
from acai_desktop.core.records.memories import (
    MEMORY_COLUMNS,
    MEMORY_ENUM_COLUMNS,
    MEMORY_FLAG_COLUMNS,
    MEMORY_JSON_COLUMNS,
    Actor,
    MemoryItem,
    MemoryStatus,
)
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.memories import (
    encode_embedding,
    fetch_memory,
    memories_by_id,
)

if TYPE_CHECKING:
    import numpy as np  # annotations only (see core/store/__init__.py)

# Columns a caller may set (id and timestamps are ours; the embedding model goes with
# the embedding, which the record doesn't hold).
WRITABLE_COLUMNS = frozenset(MEMORY_COLUMNS) - {"id", "created_at", "updated_at", "embedding_model"}
# Columns the history records (bookkeeping and free-form meta are not history).
HISTORY_COLUMNS = WRITABLE_COLUMNS - {"last_used_at", "use_count", "meta"}


def _prepare(values: dict) -> dict:
    unknown = set(values) - WRITABLE_COLUMNS - {"embedding", "embedding_model"}
    if unknown:
        raise ValueError(f"not memory columns: {sorted(unknown)}")
    prepared = dict(values)
    for column in MEMORY_JSON_COLUMNS:
        if column in prepared:
            prepared[column] = json.dumps(prepared[column] or {}, ensure_ascii=False)
    for column in MEMORY_FLAG_COLUMNS:
        if column in prepared:
            prepared[column] = bool(prepared[column])
    for column in MEMORY_ENUM_COLUMNS:
        if column in prepared and prepared[column] is not None:
            prepared[column] = str(prepared[column])
    if "embedding" in prepared and prepared["embedding"] is not None:
        prepared["embedding"] = encode_embedding(prepared["embedding"])
    return prepared


def _in_chat_project(db: Database, rows: list[dict]) -> list[dict]:
    """Each row with its ``project_id``: unless set, the project of the chat it was
    learned in (a memory learned in a project's chat belongs to that project; one
    learned outside any project, or with no chat, is everywhere's)."""
    chats = {row.get("conversation_id") for row in rows if "project_id" not in row} - {None}
    project_of: dict[int, int | None] = {}
    if chats:
        marks = ", ".join("?" for _ in chats)
        project_of = dict(
            db.execute(
                f"SELECT id, project_id FROM conversations WHERE id IN ({marks})", list(chats)
            ).fetchall()
        )
    return [
        row
        if "project_id" in row
        else {**row, "project_id": project_of.get(row.get("conversation_id"))}
        for row in rows
    ]


def history_view(item: MemoryItem, columns: Iterable[str] = HISTORY_COLUMNS) -> dict:
    public = item.to_public_dict()
    return {column: public[column] for column in columns if column in public}


def write_memory_event(
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


def add_sources(db: Database, memory_id: int, message_ids: Iterable[int]) -> None:
    db.conn.executemany(
        "INSERT INTO memory_sources (memory_id, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
        ((memory_id, message_id) for message_id in message_ids),
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
    row = _in_chat_project(db, [_prepare(values)])[0]
    row.setdefault("created_at", at)
    row.setdefault("updated_at", at)
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    memory_id = db.execute(
        f"INSERT INTO memories ({columns}) VALUES ({marks}) RETURNING id", list(row.values())
    ).fetchone()[0]
    add_sources(db, memory_id, sources)
    item = fetch_memory(db, memory_id)
    write_memory_event(db, memory_id, actor, action, None, history_view(item), at)
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
    current = fetch_memory(db, memory_id)
    if guard is not None:
        guard(current)
    row = _prepare(changes)
    row["updated_at"] = at
    assignments = ", ".join(f"{column} = ?" for column in row)
    db.execute(f"UPDATE memories SET {assignments} WHERE id = ?", [*row.values(), memory_id])
    updated = fetch_memory(db, memory_id)
    recorded = [c for c in changes if c in HISTORY_COLUMNS]
    if recorded:
        write_memory_event(
            db,
            memory_id,
            actor,
            action,
            history_view(current, recorded),
            history_view(updated, recorded),
            at,
        )
    return updated


def insert_memories(
    db: Database,
    rows: Sequence[dict],
    *,
    actor: Actor | str,
    sources: Sequence[Iterable[int]] | None = None,
    action: str = "created",
    at: str | None = None,
    via: str | None = None,
) -> list[MemoryItem]:
    """Insert many memories, their sources and 'created' events (caller's transaction).
    ``via``: who wrote them from outside the app ("Claude Desktop via MCP"), recorded in
    the event's ``after``.

    Every row must set the same columns. Ids are given explicitly (``reserve_ids``: on
    SQLite from ``max(id) + 1`` on, exactly as SQLite would assign them), so one
    ``executemany`` per table is enough.
    """
    if not rows:
        return []
    at = at or now_iso()
    prepared = _in_chat_project(db, [_prepare(row) for row in rows])
    columns = list(prepared[0])
    if any(list(row) != columns for row in prepared):
        raise ValueError("insert_memories: every row must set the same columns")
    ids = db.dialect.reserve_ids(db, "memories", len(prepared))
    names = ", ".join(["id", *columns, "created_at", "updated_at"])
    marks = ", ".join("?" for _ in range(len(columns) + 3))
    db.conn.executemany(
        f"INSERT INTO memories ({names}) VALUES ({marks})",
        ([memory_id, *row.values(), at, at] for memory_id, row in zip(ids, prepared, strict=True)),
    )
    if sources is not None:
        db.conn.executemany(
            "INSERT INTO memory_sources (memory_id, message_id) VALUES (?, ?) "
            "ON CONFLICT DO NOTHING",
            (
                (memory_id, message_id)
                for memory_id, message_ids in zip(ids, sources, strict=True)
                for message_id in message_ids
            ),
        )
    items = list(memories_by_id(db, ids).values())
    db.conn.executemany(
        "INSERT INTO memory_events (memory_id, at, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, NULL, ?)",
        (
            (item.id, at, str(actor), action, json.dumps(_arrival(item, via), ensure_ascii=False))
            for item in items
        ),
    )
    return items


def _arrival(item: MemoryItem, via: str | None) -> dict:
    view = history_view(item)
    return {**view, "via": via} if via else view


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
    memory_id = db.execute(
        f"INSERT INTO memories ({names}) VALUES ({marks}) RETURNING id",
        [*row.values(), created_at, updated_at],
    ).fetchone()[0]
    add_sources(db, memory_id, sources)
    for event in history:
        write_memory_event(
            db,
            memory_id,
            event["actor"],
            event["action"],
            event.get("before"),
            event.get("after"),
            event["at"],
        )
    item = fetch_memory(db, memory_id)
    write_memory_event(db, memory_id, actor, action, None, history_view(item), at)
    return item


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


def set_embeddings(
    db: Database,
    ids: Sequence[int],
    vectors: np.ndarray,
    model: str,
    contents: Sequence[str] | None = None,
) -> None:
    """Store vectors; with ``contents``, only where the text is still the one embedded
    (a re-embedding batch must not overwrite the vector of a memory edited meanwhile)."""
    blobs = [encode_embedding(vector) for vector in vectors]
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


def store_embeddings(
    db: Database, ids: Sequence[int], vectors: np.ndarray, model: str, contents: Sequence[str]
) -> dict[int, MemoryItem]:
    """Store re-computed vectors where the text is still the one embedded; returns the
    active memories among ``ids`` that kept that text (their vectors belong in the index)."""
    with db.atomic():
        set_embeddings(db, ids, vectors, model, contents)
    return {
        item.id: item
        for item in memories_by_id(db, ids).values()
        if item.status == MemoryStatus.ACTIVE and item.content in contents
    }


def mark_used(db: Database, ids: Sequence[int], at: str) -> None:
    """Count one use of each memory; usage is bookkeeping, so it writes no history."""
    db.conn.executemany(
        "UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id = ?",
        ((at, int(memory_id)) for memory_id in ids),
    )


def record_write_key(db: Database, key: str, memory_id: int) -> None:
    """Remember that the keyed write happened (caller's transaction, with the write)."""
    db.execute(
        "INSERT INTO memory_write_keys (key, memory_id, at) VALUES (?, ?, ?)",
        [key, memory_id, now_iso()],
    )
