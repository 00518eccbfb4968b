"""How a fact comes into the memory, one rule for every way in: the learner's
(core.learning.fact_learner) and other AI tools' ``remember`` (the MCP server).

ground -> the same fact already? -> "Ask before remembering" on? a suggestion : a memory.

- :meth:`FactIntake.grounded`: the grounding check (core.rules.grounding), with the
  embedder's similarity only where the words alone don't decide (most facts are
  settled on words, without a vector);
- :meth:`FactIntake.same_fact`: a current fact in the same words that a chat of the
  given project sees (that project's and those of no project), which is said again,
  not new;
- :meth:`FactIntake.take`: the whole rule for a fact another tool hands in
  (:class:`Via`). The learner takes the same steps with what only it has between them:
  a model that weighs a fact against similar ones, and reinforcement of one said again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.memory.validation import clean_category, clean_memory_text
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.records.memories import (
    MemoryItem,
    MemoryKind,
    Origin,
    Suggestion,
    SuggestionDraft,
)
from acai_desktop.core.resources import resource_text
from acai_desktop.core.rules.grounding import GroundingCheck, Verdict
from acai_desktop.core.rules.user_subject import name_the_subject
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.imported_conversations import conversation_from, user_message_with

# WordLlama cosine between two facts on one subject ("lives in Paris" / "lives in
# Berlin", "in Rome") is about 0.35-0.8; unrelated facts about the user score under 0.2.
RELATED_SIMILARITY = 0.3
DEFAULT_CATEGORY = "Other"


def extraction_prompt() -> str:
    """The extraction call's instructions (its worked example is what the grounding
    check recognises when a model copies it)."""
    return resource_text("prompts", "extraction.txt").strip()


def normalised(text: str) -> str:
    """A fact's words, for telling whether two say the same: lower case, no punctuation."""
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def suggestion_draft(
    content: str,
    message_id: int,
    conversation_id: int,
    category: str,
    confidence: float,
    via: str = "",
) -> SuggestionDraft:
    """A fact waiting for the user's yes, from the message it belongs to."""
    return SuggestionDraft(
        message_id, conversation_id, content, normalised(content), category, confidence, via=via
    )


@dataclass(frozen=True)
class Via:
    """Another AI tool of the user's that hands a fact in, by the name its user knows."""

    client: str
    channel: str = "MCP"

    @property
    def name(self) -> str:
        """Who writes, for the memory's history: "Claude Desktop via MCP"."""
        return f"{self.client} via {self.channel}"

    @property
    def source_id(self) -> str:
        """The ``source_id`` of the conversation that keeps what it handed in."""
        return f"{self.channel.lower()}:{self.client}"


class IntakeStatus(StrEnum):
    REMEMBERED = "remembered"
    SUGGESTED = "suggested"
    ALREADY_REMEMBERED = "already_remembered"
    REFUSED = "refused"


@dataclass(frozen=True)
class IntakeOutcome:
    status: IntakeStatus
    memory: MemoryItem | None = None
    suggestion: Suggestion | None = None
    #: Why it was refused or only suggested, for the tool to tell its user.
    reason: str = ""


class FactIntake:
    def __init__(
        self,
        memories: MemoryService,
        grounding: GroundingCheck,
        suggestions: MemorySuggestions,
        asks_first: Callable[[], bool],
        related_similarity: float = RELATED_SIMILARITY,
    ) -> None:
        self.memories = memories
        self.grounding = grounding
        self.suggestions = suggestions
        #: Whether "Ask before remembering" is on, as of now.
        self.asks_first = asks_first
        #: Facts at least this close in meaning are on the same subject.
        self.related_similarity = related_similarity

    async def grounded(self, fact: str, evidence: str, *, in_project: bool = False) -> Verdict:
        """Whether the user's words ``evidence`` support ``fact`` (``in_project``: a
        project's chat, whose facts may be about the project's things)."""
        verdict = self.grounding.check(fact, evidence, in_project=in_project)
        if verdict.rejection != "unsupported":
            return verdict
        vectors = await self.memories.embedder.embed([fact, evidence])
        similarity = float(vectors[0] @ vectors[1])
        return self.grounding.check(fact, evidence, similarity, in_project=in_project)

    async def similar_facts(self, content: str) -> list[tuple[MemoryItem, float]]:
        """Current facts (active or temporary) close enough in meaning to be the same
        subject, closest first."""
        matches = await self.memories.similar(
            content, k=5, kinds=[MemoryKind.FACT], include_temporary=True
        )
        return [(item, score) for item, score in matches if score >= self.related_similarity]

    async def same_fact(self, content: str, project_id: int | None) -> MemoryItem | None:
        """A current fact in the same words that a chat of ``project_id`` (None: outside
        every project) sees, if there is one."""
        wanted = normalised(content)
        for existing, _ in await self.similar_facts(content):
            if existing.project_id not in (None, project_id):
                continue
            if normalised(existing.content) == wanted:
                return existing
        return None

    async def take(
        self, fact: str, evidence: str | None, via: Via, category: str | None = None
    ) -> IntakeOutcome:
        """``fact`` from another tool: stored if ``evidence`` (the user's words it rests
        on) supports it; a suggestion instead when the user asks to be asked first, or
        when the tool quotes no words of the user (then the fact is only its claim).
        The user's words are kept as a message of the tool's own conversation ("Claude
        Desktop (MCP)"): the memory's source, and the message a suggestion belongs to."""
        content = name_the_subject(clean_memory_text(fact, what="fact"))
        category = clean_category(category) or DEFAULT_CATEGORY
        if not (evidence and evidence.strip()):
            existing = await self.same_fact(content, None)
            if existing is not None:
                return IntakeOutcome(IntakeStatus.ALREADY_REMEMBERED, memory=existing)
            return await self._propose_unsaid(content, category, via)
        evidence = clean_memory_text(evidence, what="user_said")
        verdict = await self.grounded(content, evidence)
        if not verdict.grounded:
            why = verdict.rejection.value.replace("_", " ")
            detail = f": {verdict.detail}" if verdict.detail else ""
            return IntakeOutcome(IntakeStatus.REFUSED, reason=f"{why}{detail}")
        existing = await self.same_fact(content, None)
        if existing is not None:
            return IntakeOutcome(IntakeStatus.ALREADY_REMEMBERED, memory=existing)
        conversation_id = await self._conversation_of(via)
        message = await self._users_words(conversation_id, evidence)
        await self.memories.episodes.add([message.id])
        if self.asks_first():
            draft = suggestion_draft(
                content, message.id, conversation_id, category, 1.0, via=via.name
            )
            return IntakeOutcome(
                IntakeStatus.SUGGESTED,
                suggestion=await self.suggestions.propose(draft),
                reason="Not stored yet: the user reviews new memories first, so it waits "
                "for their approval in ACAI Desktop.",
            )
        memory = await self.memories.remember(
            content,
            kind=MemoryKind.FACT,
            category=category,
            origin=Origin.USER,
            sources=[message.id],
            conversation_id=conversation_id,
            explicit=True,  # the user asked their tool to remember it
            via=via.name,
        )
        return IntakeOutcome(IntakeStatus.REMEMBERED, memory=memory)

    async def _conversation_of(self, via: Via) -> int:
        conversation = await self.memories.store.run(
            conversation_from, via.source_id, f"{via.client} ({via.channel})"
        )
        return conversation.id

    async def _users_words(self, conversation_id: int, evidence: str) -> Message:
        """The user's words as a message of the tool's conversation: the same words
        handed in again (a memory list imported twice) are the message they were."""
        said = await self.memories.store.run(user_message_with, conversation_id, evidence)
        if said is not None:
            return said
        conversations = ConversationRepository(self.memories.store)
        return await conversations.add_message(conversation_id, "user", evidence)

    async def _propose_unsaid(self, content: str, category: str, via: Via) -> IntakeOutcome:
        """A fact no words of the user back: anyone who can call the tool could write
        it (a prompt-injected client too), so it never becomes a memory, nor a message
        of the user's, on the client's say-so. It waits in the window's suggestions;
        the message it belongs to is a ``system`` note in the client's conversation,
        naming the client as its author: shown there, never recalled into a prompt
        (only user and assistant messages are) and never taken for the user's words."""
        conversation_id = await self._conversation_of(via)
        note = await ConversationRepository(self.memories.store).add_message(
            conversation_id, "system", f"{via.client} asked to remember: {content}",
            author=via.name,
        )  # fmt: skip
        draft = suggestion_draft(content, note.id, conversation_id, category, 1.0, via=via.name)
        suggestion = await self.suggestions.propose(draft)
        waiting = "waits" if suggestion is not None else "already waits"
        return IntakeOutcome(
            IntakeStatus.SUGGESTED,
            suggestion=suggestion,
            reason=f"Not stored: no user_said quoted the user's own words, so the fact "
            f"{waiting} for the user's approval in ACAI Desktop.",
        )
