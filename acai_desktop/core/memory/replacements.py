"""The fact a new one replaces, where the wording says so (core.rules.slots): the user's
home, name or age said again, differently. Used where no model reconciles facts — the
built-in model's rules and a suggestion the user accepts — both through
:func:`replace_by_rule`, so a pinned or user-edited memory it finds is never replaced
without the user's choice (it gets a ``conflict`` instead, as a model's reconcile does)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from acai_desktop.core.memory.query import fts_match_expression
from acai_desktop.core.records.memories import Actor, MemoryItem
from acai_desktop.core.rules.slots import slot_of
from acai_desktop.core.rules.words import tokenize
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.database import Store

if TYPE_CHECKING:
    from acai_desktop.core.memory.service import MemoryService

#: Facts holding a slot's words read to find the one in the slot (most important first).
CANDIDATES = 40


async def replaced_fact(
    store: Store, content: str, conversation_id: int | None
) -> MemoryItem | None:
    """The active fact (or note) about the user that ``content``, to be learned in the
    chat ``conversation_id``, replaces: the newest in the same slot, saying something
    else. Only one of the same project (or of none, outside projects): a project's chat
    doesn't rewrite what every chat sees."""
    slot = slot_of(content)
    if slot is None:
        return None
    project_id = None
    if conversation_id is not None:
        project_id = (await store.read(fetch_conversation, conversation_id)).project_id
    found = await store.read(
        sql.facts_holding, fts_match_expression(slot.terms.split()), CANDIDATES
    )
    same = [
        memory
        for memory in found
        if memory.project_id == project_id
        and slot_of(memory.content) == slot
        and tokenize(memory.content) != tokenize(content)
    ]
    return max(same, key=lambda memory: (memory.updated_at, memory.id), default=None)


async def replace_by_rule(
    memories: MemoryService,
    content: str,
    *,
    conversation_id: int | None,
    actor: Actor,
    category: str | None,
    confidence: float,
    sources: Iterable[int],
    write_key: str | None,
) -> MemoryItem | None:
    """``content`` as the successor of the fact it replaces (:func:`replaced_fact`), or,
    where that fact is pinned or edited by the user, as a ``conflict`` beside it for the
    user to decide; None when it replaces nothing (store it as a new memory)."""
    old = await replaced_fact(memories.store, content, conversation_id)
    if old is None:
        return None
    return await memories.propose_change(
        old.id,
        content,
        actor=actor,
        category=category,
        confidence=confidence,
        sources=sources,
        conversation_id=conversation_id,
        write_key=write_key,
        found_by_rule=True,
    )
