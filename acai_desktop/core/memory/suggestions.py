"""Memory suggestions: with "Ask before remembering" on, a fact the processor found (and
the grounding check let through) waits in the panel for the user's decision instead of
becoming a memory. Accepted, it is an ordinary memory with its source message; dismissed,
it is never proposed again for that message."""

from __future__ import annotations

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.replacements import replace_by_rule
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.records.memories import (
    Actor,
    MemoryItem,
    MemoryKind,
    Origin,
    Suggestion,
    SuggestionDraft,
    SuggestionStatus,
)
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.suggestions import (
    decide_suggestion,
    ensure_pending,
    fetch_suggestion,
    pending_suggestions,
    propose_suggestion,
)


class MemorySuggestions:
    def __init__(self, store: Store, memories: MemoryService, events: EventBus) -> None:
        self.store = store
        self.memories = memories
        self.events = events

    async def propose(self, draft: SuggestionDraft) -> Suggestion | None:
        """Queue a fact for the user; None if it was proposed for this message before."""
        suggestion = await self.store.run(propose_suggestion, draft)
        if suggestion is not None:
            self.events.emit(ev.SuggestionsChanged(suggestion))
        return suggestion

    async def pending(self, limit: int = 200) -> list[Suggestion]:
        return await self.store.run(pending_suggestions, limit)

    async def get(self, suggestion_id: int) -> Suggestion:
        return await self.store.run(fetch_suggestion, suggestion_id)

    async def accept(self, suggestion_id: int, content: str | None = None) -> MemoryItem:
        """The user says yes (optionally with their own wording): an ordinary memory,
        sourced to the message, or the successor of the fact it replaces (a new home,
        name or age, see core.rules.slots) — a ``conflict`` beside it when that one is
        pinned or edited (the user decides that in the panel). Keyed by the suggestion,
        so a second accept after a crash between the two writes stores nothing twice."""
        suggestion = ensure_pending(await self.get(suggestion_id))
        content = content if content is not None else suggestion.content
        key = f"suggestion:{suggestion_id}"
        # Where nothing weighed it against what is known (the built-in model's rules,
        # or the user's own wording), a new home, name or age replaces the one before;
        # one the user pinned or edited stays, and the new fact waits as a conflict.
        memory = await replace_by_rule(
            self.memories,
            content,
            conversation_id=suggestion.conversation_id,
            actor=Actor.USER,
            category=suggestion.category,
            confidence=suggestion.confidence,
            sources=[suggestion.message_id],
            write_key=key,
        )
        if memory is not None:
            return await self._decided(suggestion_id, memory)
        memory = await self.memories.remember(
            content,
            kind=MemoryKind.FACT,
            category=suggestion.category,
            confidence=suggestion.confidence,
            origin=Origin.CRITICAL_INFO,
            actor=Actor.USER,
            sources=[suggestion.message_id],
            conversation_id=suggestion.conversation_id,
            explicit=True,  # the user confirmed it: no policy demotes it to temporary
            write_key=key,
            via=f"You, suggested by {suggestion.via}" if suggestion.via else None,
        )
        return await self._decided(suggestion_id, memory)

    async def _decided(self, suggestion_id: int, memory: MemoryItem) -> MemoryItem:
        decided = await self.store.run(
            decide_suggestion, suggestion_id, SuggestionStatus.ACCEPTED, memory.id
        )
        self.events.emit(ev.SuggestionsChanged(decided))
        return memory

    async def dismiss(self, suggestion_id: int) -> Suggestion:
        decided = await self.store.run(decide_suggestion, suggestion_id, SuggestionStatus.DISMISSED)
        self.events.emit(ev.SuggestionsChanged(decided))
        return decided
