"""Export and import of a profile's memories as one JSON file.

The format and its rules (no duplicates, all or nothing, which sources are linked) are
described in :mod:`~acai_desktop.core.memory.export_format`. An import checks the whole
file first, then writes it in short transactions of a batch each (so the app beside it
is not held up) and publishes each batch through :meth:`MemoryService.publish`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.export_format import (
    FORMAT,
    LINK_KEYS,
    VERSION,
    ExportDocument,
    ExportedMemory,
    parse_document,
    read_document,
)
from acai_desktop.core.records.memories import Actor, MemoryItem, Origin
from acai_desktop.core.rules.importance import score_importance
from acai_desktop.core.store import memories as reads
from acai_desktop.core.store import memory_writes as writes
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.memories import MemoryFilter, list_memories, memory_history
from acai_desktop.core.store.memory_changes import MemoryChange

log = logging.getLogger(__name__)

__all__ = ["ImportReport", "export_memories", "import_memories", "parse_document"]

#: Memories written per transaction by an import. A batch of this size holds the write
#: lock for tens of milliseconds, so a turn of the app beside a long import waits that
#: long for its writes (``bench soak`` times that wait beside a 100k import).
IMPORT_BATCH = 50
#: The event an import writes last for each memory it adds.
IMPORTED = "imported"


@dataclass(frozen=True)
class ImportReport:
    imported: int
    skipped: int  # already present (same uid)
    unlinked_sources: int  # kept in meta["unlinked_sources"]

    def to_dict(self) -> dict:
        return {
            "imported": self.imported,
            "skipped": self.skipped,
            "unlinked_sources": self.unlinked_sources,
        }


# -- writing a file --------------------------------------------------------------


def derived_uid(item: MemoryItem, original_content: str) -> str:
    """A stable uid for a memory created before uids existed: its birth never changes."""
    digest = hashlib.sha256(f"{item.created_at}\n{original_content}".encode()).hexdigest()
    return digest[:32]


def _collect_readable(db: Database) -> list[dict]:
    """:func:`_collect`, and when some stored text is damaged (not UTF-8: a damaged
    page), again with the unreadable bytes as U+FFFD: the export is how the user saves
    what is readable of a damaged database, so it must not stop at the first bad row."""
    try:
        return _collect(db)
    except sqlite3.OperationalError as error:
        if getattr(error, "sqlite_errorcode", None) is not None:
            raise  # SQLite's own error: not a decoding one
    log.warning("the database holds damaged text; exporting it with U+FFFD in its place")
    connection = db.conn
    previous = connection.text_factory
    connection.text_factory = _readable_text
    try:
        return _collect(db)
    finally:
        connection.text_factory = previous


def _readable_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _collect(db: Database) -> list[dict]:
    """Every memory of the profile as an export entry (runs on the database thread)."""
    items = list_memories(db, MemoryFilter(statuses=None))
    items.sort(key=lambda item: item.id)
    sources = reads.sources_of(db, [item.id for item in items])
    created = reads.messages_created_at(db, {s for group in sources.values() for s in group})
    histories = {item.id: memory_history(db, item.id) for item in items}
    uid_of: dict[int, str] = {}
    for item in items:
        uid = item.meta.get("uid")
        if not isinstance(uid, str) or not uid:
            first = histories[item.id][0].after if histories[item.id] else None
            uid = derived_uid(item, (first or {}).get("content", item.content))
        uid_of[item.id] = uid
    entries = []
    for item in items:
        meta = {k: v for k, v in item.meta.items() if k != "uid" and k not in LINK_KEYS}
        entry = {
            "uid": uid_of[item.id],
            "content": item.content,
            "kind": item.kind.value,
            "category": item.category,
            "confidence": item.confidence,
            "importance": item.importance,
            "pinned": item.pinned,
            "status": item.status.value,
            "origin": item.origin.value,
            "user_edited": item.user_edited,
            "created_at": item.created_at,
            "updated_at": item.updated_at,
            "use_count": item.use_count,
            "last_used_at": item.last_used_at,
            "superseded_by_uid": uid_of.get(item.superseded_by) if item.superseded_by else None,
        }
        for key in LINK_KEYS:
            linked = item.meta.get(key)
            entry[f"{key}_uid"] = uid_of.get(linked) if isinstance(linked, int) else None
        entry["sources"] = [
            {"message_id": message_id, "created_at": created.get(message_id)}
            for message_id in sources[item.id]
        ]
        entry["history"] = [
            {
                "at": event.at,
                "actor": event.actor.value,
                "action": event.action,
                "before": event.before,
                "after": event.after,
            }
            for event in histories[item.id]
        ]
        entry["meta"] = meta
        entries.append(entry)
    return entries


async def export_memories(service, path: str | Path) -> int:
    """Write every memory of the profile (all statuses) to ``path``; returns the count.

    The file appears complete or not at all (written beside it, then renamed).
    """
    text, count = await export_text(service)
    await asyncio.to_thread(write_whole, path, text)  # the window's loop goes on meanwhile
    return count


def write_whole(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that the file appears complete or not at all
    (written beside it, then renamed)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    except OSError as error:
        raise InvalidInputError(f"Cannot write to {directory}: {error.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


async def export_text(service) -> tuple[str, int]:
    """Every memory of the profile as the export file's text, and how many there are
    (``memories export -`` writes it to standard output)."""
    entries = await service.store.run(_collect_readable)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now_iso(),
        "memories": entries,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n", len(entries)


# -- importing -------------------------------------------------------------------


def _check_links(document: ExportDocument, known_uids: set[str]) -> None:
    for position, memory in enumerate(document.memories):
        for key in ("superseded_by_uid", "conflicts_with_uid", "supersedes_uid"):
            uid = getattr(memory, key)
            if uid is not None and uid not in known_uids:
                raise InvalidInputError(
                    "The file was not imported; nothing was changed:\n  "
                    f"memories[{position}].{key}: no memory with uid {uid!r} in the file "
                    "or in this profile"
                )


@dataclass
class ImportPlan:
    """What an import will write, decided before its first write; each batch updates
    what it has seen arrive from elsewhere."""

    new: list[ExportedMemory]  # the memories whose uid is not here yet, in file order
    skipped: int
    #: created_at of the messages the file names as sources, by id (links are checked)
    created: dict[int, str]
    #: the highest memory id seen by the plan or the last batch (ours included)
    seen_id: int
    #: uids that arrived after the plan, from another writer (the same file imported
    #: twice at once): skipped
    arrived: set[str] = field(default_factory=set)

    def catch_up(self, db: Database) -> None:
        """Note the uids of memories added since ``seen_id`` (a rowid range: no scan of
        the whole table, however big the import)."""
        rows = db.execute(
            f"SELECT id, {db.dialect.json_text('meta', 'uid')} FROM memories WHERE id > ?",
            [self.seen_id],
        ).fetchall()
        self.arrived.update(uid for _, uid in rows if uid is not None)
        self.seen_id = max([self.seen_id, *(memory_id for memory_id, _ in rows)])


def plan_import(db: Database, document: ExportDocument) -> ImportPlan:
    """Check the file against the profile (links must name a memory in the file or
    here) and pick the memories to write. Reads only: a refused file changes nothing."""
    id_of_uid = reads.memory_ids_by_uid(db)
    _check_links(document, set(id_of_uid) | {m.uid for m in document.memories})
    new = [memory for memory in document.memories if memory.uid not in id_of_uid]
    wanted = {s.message_id for m in new for s in m.sources}
    seen_id = db.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]
    return ImportPlan(
        new=new,
        skipped=len(document.memories) - len(new),
        created=reads.messages_created_at(db, wanted),
        seen_id=seen_id,
    )


def _values_of(memory: ExportedMemory, vector, model: str, meta: dict) -> dict:
    importance = memory.importance
    if importance is None:
        importance = score_importance(
            memory.content,
            kind=memory.kind,
            category=memory.category,
            confidence=memory.confidence,
            explicit=memory.origin == Origin.USER,
            use_count=memory.use_count,
            last_used_at=memory.last_used_at,
        )
    return {
        "kind": memory.kind,
        "content": memory.content,
        "category": memory.category,
        "confidence": memory.confidence,
        "importance": importance,
        "pinned": memory.pinned,
        "status": memory.status,
        "origin": memory.origin,
        "user_edited": memory.user_edited,
        "use_count": memory.use_count,
        "last_used_at": memory.last_used_at,
        "meta": meta,
        "embedding": vector,
        "embedding_model": model,
    }


def store_import_batch(
    db: Database,
    plan: ImportPlan,
    batch: list[ExportedMemory],
    vectors: list,
    model: str,
    imported_at: str,
) -> tuple[MemoryChange, int]:
    """Write one batch of new memories, in one short transaction: the change to
    publish and how many sources were left unlinked. A memory whose uid arrived since
    the plan is skipped. The rows are made ready before the write lock is taken."""
    rows, unlinked_count = [], 0
    for memory, vector in zip(batch, vectors, strict=True):
        linked, unlinked = [], []
        for source in memory.sources:
            here = plan.created.get(source.message_id)
            if here is not None and source.created_at in (None, here):
                linked.append(source.message_id)
            else:
                unlinked.append(source.model_dump())
        meta = dict(memory.meta)
        meta["uid"] = memory.uid
        if unlinked:
            meta["unlinked_sources"] = unlinked
        history = [entry.model_dump(mode="json") for entry in memory.history]
        values = _values_of(memory, vector, model, meta)
        rows.append((memory, vector, values, history, linked, len(unlinked)))
    with db.atomic():
        plan.catch_up(db)
        new: list[MemoryItem] = []
        stored = {}
        for memory, vector, values, history, linked, unlinked in rows:
            if memory.uid in plan.arrived:
                continue
            item = writes.insert_recorded_memory(
                db,
                values,
                created_at=memory.created_at or imported_at,
                updated_at=memory.updated_at or memory.created_at or imported_at,
                history=history,
                sources=linked,
                actor=Actor.USER,
                action=IMPORTED,
                at=imported_at,
            )
            new.append(item)
            stored[item.id] = np.asarray(vector, dtype=np.float32)
            unlinked_count += unlinked
        plan.seen_id = max([plan.seen_id, *(item.id for item in new)])
    return MemoryChange(added=new, vectors=stored), unlinked_count


def store_import_links(
    db: Database, memories: list[ExportedMemory], id_of_uid: dict[str, int]
) -> MemoryChange:
    """Link memories of the file to each other (``superseded_by``, ``supersedes``,
    ``conflicts_with``), now that every uid has a local id (``id_of_uid``, read before);
    one short transaction per call. Only a memory untouched since its import gets
    links: so a second run of an import that was stopped half-way completes the links
    of the first, and a memory changed here since keeps its own."""
    with db.atomic():
        named = [id_of_uid[uid] for uid in _uids_named(memories) if uid in id_of_uid]
        # Only ids that still carry the uid they were read with.
        local = {
            item.meta.get("uid"): item
            for item in reads.memories_by_id(db, named).values()
            if id_of_uid.get(item.meta.get("uid")) == item.id
        }
        ours = [local[memory.uid].id for memory in memories if memory.uid in local]
        untouched = reads.last_event_is(db, ours, IMPORTED)
        links = []
        for memory in memories:
            item = local.get(memory.uid)
            if item is None or item.id not in untouched:
                continue
            meta = dict(item.meta)
            for key in LINK_KEYS:
                target = local.get(getattr(memory, f"{key}_uid"))
                if target is not None:
                    meta[key] = target.id
            target = local.get(memory.superseded_by_uid)
            superseded_by = target.id if target is not None else item.superseded_by
            if superseded_by != item.superseded_by or meta != item.meta:
                links.append((item.id, superseded_by, meta))
        writes.link_memories(db, links)
        linked = reads.memories_by_id(db, [link[0] for link in links]) if links else {}
    return MemoryChange(changed=list(linked.values()))


def _uids_named(memories: list[ExportedMemory]) -> set[str]:
    """The memories' uids and the uids their links name."""
    named = set()
    for memory in memories:
        named.add(memory.uid)
        for key in ("superseded_by_uid", *(f"{k}_uid" for k in LINK_KEYS)):
            if getattr(memory, key) is not None:
                named.add(getattr(memory, key))
    return named


def _has_links(memory: ExportedMemory) -> bool:
    return any(
        getattr(memory, key) is not None
        for key in ("superseded_by_uid", *(f"{k}_uid" for k in LINK_KEYS))
    )


async def import_memories(
    service, path: str | Path, *, batch_size: int | None = None
) -> ImportReport:
    """Import an export file into the service's profile (see the module docstring).

    The whole file is checked before the first write. Then it is written in batches of
    ``batch_size`` memories, each embedded and committed on its own: one transaction
    per batch keeps the write lock for milliseconds, so the app's turns beside a long
    import wait that long, not the whole import. Stopped half-way, an import keeps the
    batches it committed; running it again adds the rest (uids present are skipped)
    and completes the links between them.
    """
    size = batch_size or IMPORT_BATCH
    document = read_document(path)
    plan = await service.store.run(plan_import, document)
    imported_at = now_iso()
    imported = unlinked = 0
    for start in range(0, len(plan.new), size):
        batch = plan.new[start : start + size]
        vectors = await service.embedder.embed([memory.content for memory in batch])
        change, batch_unlinked = await service.store.run(
            store_import_batch, plan, batch, list(vectors), service.embedder.name, imported_at
        )
        await service.publish(change)
        imported += len(change.added)
        unlinked += batch_unlinked
    linking = [memory for memory in document.memories if _has_links(memory)]
    if linking:
        id_of_uid = await service.store.run(reads.memory_ids_by_uid)  # a read: no lock
        for start in range(0, len(linking), size):
            batch = linking[start : start + size]
            change = await service.store.run(store_import_links, batch, id_of_uid)
            await service.publish(change)
    return ImportReport(imported=imported, skipped=plan.skipped, unlinked_sources=unlinked)
