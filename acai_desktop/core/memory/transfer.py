"""Export and import of a profile's memories as one JSON file.

The format and its rules (no duplicates, all or nothing, which sources are linked) are
described in :mod:`~acai_desktop.core.memory.export_format`. An import writes in one
transaction and publishes the new memories through :meth:`MemoryService.publish`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlite_utils import Database

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
from acai_desktop.core.memory.importance import score_importance
from acai_desktop.core.records import Actor, MemoryItem, Origin
from acai_desktop.core.store import memories as reads
from acai_desktop.core.store import memory_writes as writes
from acai_desktop.core.store.memories import MemoryFilter, list_memories, memory_history
from acai_desktop.core.store.memory_changes import MemoryChange

__all__ = ["ImportReport", "export_memories", "import_memories", "parse_document"]


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
    path = Path(path)
    entries = await service.store.run(_collect)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now_iso(),
        "memories": entries,
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
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
    return len(entries)


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


def store_import(
    db: Database, document: ExportDocument, vectors: list, model: str, imported_at: str
) -> tuple[MemoryChange, int, int]:
    """Write the memories of ``document`` that are new here, in one transaction: the
    change to publish, how many were skipped (uid present) and how many sources were
    left unlinked."""
    with db.atomic():
        id_of_uid = reads.memory_ids_by_uid(db)
        _check_links(document, set(id_of_uid) | {m.uid for m in document.memories})
        wanted = {s.message_id for m in document.memories for s in m.sources}
        created = reads.messages_created_at(db, wanted)
        new: list[tuple[ExportedMemory, MemoryItem, Any]] = []
        skipped = unlinked_count = 0
        for memory, vector in zip(document.memories, vectors, strict=True):
            if memory.uid in id_of_uid:
                skipped += 1
                continue
            linked, unlinked = [], []
            for source in memory.sources:
                here = created.get(source.message_id)
                if here is not None and source.created_at in (None, here):
                    linked.append(source.message_id)
                else:
                    unlinked.append(source.model_dump())
            unlinked_count += len(unlinked)
            meta = dict(memory.meta)
            meta["uid"] = memory.uid
            if unlinked:
                meta["unlinked_sources"] = unlinked
            importance = memory.importance
            if importance is None:
                importance = score_importance(
                    memory.content,
                    kind=memory.kind,
                    confidence=memory.confidence,
                    explicit=memory.origin == Origin.USER,
                    use_count=memory.use_count,
                    last_used_at=memory.last_used_at,
                )
            values = {
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
            item = writes.insert_recorded_memory(
                db,
                values,
                created_at=memory.created_at or imported_at,
                updated_at=memory.updated_at or memory.created_at or imported_at,
                history=[entry.model_dump(mode="json") for entry in memory.history],
                sources=linked,
                actor=Actor.USER,
                action="imported",
                at=imported_at,
            )
            id_of_uid[memory.uid] = item.id
            new.append((memory, item, vector))
        # Links between memories, now that every uid has a local id.
        links = []
        for memory, item, _ in new:
            meta = dict(item.meta)
            for key in LINK_KEYS:
                uid = getattr(memory, f"{key}_uid")
                if uid is not None:
                    meta[key] = id_of_uid[uid]
            superseded_by = (
                id_of_uid[memory.superseded_by_uid] if memory.superseded_by_uid else None
            )
            if superseded_by is not None or meta != item.meta:
                links.append((item.id, superseded_by, meta))
        writes.link_memories(db, links)
        items = list(reads.memories_by_id(db, [item.id for _, item, _ in new]).values())
        stored = {item.id: np.asarray(vector, dtype=np.float32) for _, item, vector in new}
        return MemoryChange(added=items, vectors=stored), skipped, unlinked_count


async def import_memories(service, path: str | Path) -> ImportReport:
    """Import an export file into the service's profile (see the module docstring)."""
    document = read_document(path)
    contents = [memory.content for memory in document.memories]
    vectors = await service.embedder.embed(contents) if contents else []
    change, skipped, unlinked = await service.store.run(
        store_import, document, vectors, service.embedder.name, now_iso()
    )
    await service.publish(change)
    return ImportReport(imported=len(change.added), skipped=skipped, unlinked_sources=unlinked)
