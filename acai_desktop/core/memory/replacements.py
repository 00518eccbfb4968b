"""The fact a new one replaces, where the wording says so (core.rules.slots): the user's
home, name or age said again, differently. Used where no model reconciles facts — the
built-in model's rules and a suggestion the user accepts."""

from __future__ import annotations

from acai_desktop.core.memory.query import fts_match_expression
from acai_desktop.core.records import MemoryItem
from acai_desktop.core.rules.slots import slot_of
from acai_desktop.core.rules.words import tokenize
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.database import Store

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
