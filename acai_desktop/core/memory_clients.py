"""The memory, for the user's other AI tools (the MCP server): search, list, remember,
recall, and the pinned memories.

Reads use the assistant's own retrieval. ``remember`` writes through the app's rules:
the text is validated, the grounding check must find the fact in the user's words the
client quotes, a fact already remembered is not stored twice, and with "Ask before
remembering" on it becomes a suggestion the window shows for approval. A fact with no
words of the user (no ``user_said``) is the client's claim only: always a suggestion,
never a memory or a user message on its own. The user's words
are kept as a message of one conversation per client ("Claude Desktop (MCP)"): the
memory's source, which the panel links to, and the message a suggestion belongs to.
Every write names the client in the memory's history ("Claude Desktop via MCP").

Text from a client is data, like the user's own messages: stored and shown as plain
text, quoted into prompts through ``core/prompt_quoting``.
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus
from acai_desktop.core.llm.settings import load_model_settings
from acai_desktop.core.memory.retrieval import (
    HybridRetriever,
    RetrievalWeights,
    RetrievedMemory,
    RetrievedMessage,
)
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.memory.validation import clean_category, clean_memory_text
from acai_desktop.core.processors.critical_info import extraction_prompt, name_the_subject
from acai_desktop.core.processors.fact_intake import FactIntake, normalised
from acai_desktop.core.processors.grounding import GroundingCheck
from acai_desktop.core.profile import Profile
from acai_desktop.core.records import (
    MemoryItem,
    MemoryKind,
    MemoryStatus,
    Origin,
    Suggestion,
    SuggestionDraft,
)
from acai_desktop.core.store.conversations import ConversationRepository
from acai_desktop.core.store.imported_conversations import conversation_from
from acai_desktop.core.store.memories import MemoryFilter

MAX_RESULTS = 50
DEFAULT_CATEGORY = "Other"


def memory_dict(item: MemoryItem) -> dict:
    return {
        "id": item.id,
        "content": item.content,
        "kind": item.kind.value,
        "category": item.category,
        "pinned": item.pinned,
        "status": item.status.value,
        "confidence": item.confidence,
        "created_at": item.created_at,
    }


@dataclass(frozen=True)
class RememberOutcome:
    #: remembered | suggested | already_remembered | refused
    status: str
    memory: MemoryItem | None = None
    suggestion: Suggestion | None = None
    reason: str = ""

    def to_dict(self) -> dict:
        result: dict = {"status": self.status}
        if self.memory is not None:
            result["memory"] = memory_dict(self.memory)
        if self.suggestion is not None:
            result["suggestion_id"] = self.suggestion.id
        if self.reason:
            result["reason"] = self.reason
        return result


class MemoryForClients:
    def __init__(
        self, profile: Profile, memories: MemoryService, events: EventBus, client: str
    ) -> None:
        self.profile = profile
        self.memories = memories
        self.store = memories.store
        #: "Claude Desktop via MCP": who writes, for the memory's history.
        self.via = f"{client} via MCP"
        self.client = client
        self.intake = FactIntake(memories, GroundingCheck(extraction_prompt()))
        self.suggestions = MemorySuggestions(self.store, memories, events)
        self.conversations = ConversationRepository(self.store)
        # The assistant's own ranking, built once: over memories and past messages
        # (recall), and over memories alone (search).
        self._retriever = HybridRetriever(
            self.store, memories.embedder, memories.index, messages=memories.episodes.index
        )
        self._memories_only = HybridRetriever(
            self.store,
            memories.embedder,
            memories.index,
            messages=memories.episodes.index,
            weights=RetrievalWeights(episodic=0.0),
        )

    async def search(self, query: str, k: int = 10) -> list[dict]:
        """The memories the assistant itself would retrieve for ``query``, best first."""
        if not query.strip():
            raise InvalidInputError("The search query is empty.")
        hits = await self._memories_only.search(query, _bounded(k))
        return [
            {**memory_dict(hit.memory), "score": hit.score, "reasons": hit.reasons}
            for hit in hits
            if isinstance(hit, RetrievedMemory)
        ]

    async def list(self, limit: int = 20, offset: int = 0, category: str | None = None) -> dict:
        """Current memories, pinned first, then the latest changed, a page at a time."""
        page = MemoryFilter(category=category, limit=_bounded(limit), offset=max(0, int(offset)))
        total = await self.memories.count(MemoryFilter(category=category))
        items = await self.memories.list(page)
        return {"total": total, "memories": [memory_dict(item) for item in items]}

    async def pinned(self) -> list[MemoryItem]:
        return [
            item
            for item in await self.memories.list(MemoryFilter(pinned=True))
            if item.status == MemoryStatus.ACTIVE
        ]

    async def recall(self, query: str, k: int = 5) -> list[dict]:
        """Messages of past conversations (imported ones included) that match ``query``."""
        if not query.strip():
            raise InvalidInputError("The search query is empty.")
        hits = await self._retriever.search(query, MAX_RESULTS)
        messages = [hit for hit in hits if isinstance(hit, RetrievedMessage)][: _bounded(k)]
        return [
            {
                "conversation_id": hit.message.conversation_id,
                "conversation": hit.message.conversation_title,
                "speaker": hit.message.speaker,
                "content": hit.message.content,
                "created_at": hit.message.created_at,
                "score": hit.score,
            }
            for hit in messages
        ]

    async def remember(
        self, fact: str, user_said: str | None = None, category: str | None = None
    ) -> RememberOutcome:
        """Store ``fact`` if ``user_said`` (the user's words it rests on) supports it; a
        suggestion instead when the user asks to be asked first, or when the client
        quotes no words of the user (then the fact is only the client's claim)."""
        content = name_the_subject(clean_memory_text(fact, what="fact"))
        category = clean_category(category) or DEFAULT_CATEGORY
        if not (user_said and user_said.strip()):
            existing = await self.intake.same_fact(content, None)
            if existing is not None:
                return RememberOutcome("already_remembered", memory=existing)
            return await self._propose_unsaid(content, category)
        evidence = clean_memory_text(user_said, what="user_said")
        verdict = await self.intake.grounded(content, evidence)
        if not verdict.grounded:
            why = verdict.rejection.value.replace("_", " ")
            return RememberOutcome(
                "refused", reason=f"{why}{': ' + verdict.detail if verdict.detail else ''}"
            )
        existing = await self.intake.same_fact(content, None)
        if existing is not None:
            return RememberOutcome("already_remembered", memory=existing)
        conversation = await self._conversation()
        message = await self.conversations.add_message(conversation.id, "user", evidence)
        await self.memories.episodes.add([message.id])
        settings = load_model_settings(self.profile.settings_path)
        if settings is not None and settings.asks_before_remembering():
            draft = SuggestionDraft(
                message.id, conversation.id, content, normalised(content), category, 1.0,
                via=self.via,
            )  # fmt: skip
            suggestion = await self.suggestions.propose(draft)
            return RememberOutcome(
                "suggested",
                suggestion=suggestion,
                reason="Not stored yet: the user reviews new memories first, so it waits "
                "for their approval in ACAI Desktop.",
            )
        memory = await self.memories.remember(
            content,
            kind=MemoryKind.FACT,
            category=category,
            origin=Origin.USER,
            sources=[message.id],
            conversation_id=conversation.id,
            explicit=True,  # the user asked their tool to remember it
            via=self.via,
        )
        return RememberOutcome("remembered", memory=memory)

    async def _conversation(self):
        return await self.store.run(conversation_from, f"mcp:{self.client}", f"{self.client} (MCP)")

    async def _propose_unsaid(self, content: str, category: str) -> RememberOutcome:
        """A fact no words of the user back: anyone who can call the tool could write
        it (a prompt-injected client too), so it never becomes a memory, nor a message
        of the user's, on the client's say-so. It waits in the window's suggestions;
        the message it belongs to is a ``system`` note in the client's conversation,
        naming the client as its author: shown there, never recalled into a prompt
        (only user and assistant messages are) and never taken for the user's words."""
        conversation = await self._conversation()
        note = await self.conversations.add_message(
            conversation.id, "system", f"{self.client} asked to remember: {content}",
            author=self.via,
        )  # fmt: skip
        draft = SuggestionDraft(
            note.id, conversation.id, content, normalised(content), category, 1.0, via=self.via
        )
        suggestion = await self.suggestions.propose(draft)
        waiting = "waits" if suggestion is not None else "already waits"
        return RememberOutcome(
            "suggested",
            suggestion=suggestion,
            reason=f"Not stored: no user_said quoted the user's own words, so the fact "
            f"{waiting} for the user's approval in ACAI Desktop.",
        )


def _bounded(k: int) -> int:
    return max(1, min(int(k), MAX_RESULTS))
