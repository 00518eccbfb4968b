"""CriticalInfoProcessor: durable facts about the user, out of their own messages.

Three steps per user message, each cheaper than the next one is expensive:
1. a local gate drops acknowledgements ("okay", "thanks") with no model call at all;
2. a *triage* call on the cheap model answers yes/no: does this carry a new durable fact?
3. only on yes, an *extraction* call returns ``{"facts": [{fact, category, confidence}]}``.
Each fact is then reconciled with the most similar active facts: a duplicate reinforces
the old memory, a refinement or contradiction supersedes it (both rows kept), and a fact
that contradicts a pinned or user-edited memory is stored as a ``conflict`` for the user.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.planner import is_acknowledgement
from acai_desktop.core.records import Actor, Job, MemoryItem, MemoryKind, Message, Origin
from acai_desktop.core.resources import resource_text
from acai_desktop.core.store.conversations import ConversationRepository

log = logging.getLogger(__name__)

ACTOR = Actor.CRITICAL_INFO_PROCESSOR
CATEGORIES = (
    "Personal",
    "Professional",
    "Preference",
    "Plan",
    "Location",
    "Relationship",
    "Health",
    "Other",
)
#: Messages longer than this are cut before triage/extraction (the start carries the news).
MAX_MESSAGE_CHARS_FOR_EXTRACTION = 4000


class TriageReply(BaseModel):
    durable_fact: bool


class ExtractedFact(BaseModel):
    fact: str = Field(min_length=3, max_length=500)
    category: str = "Other"
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("category")
    @classmethod
    def known_category(cls, value: str) -> str:
        for category in CATEGORIES:
            if value.strip().lower() == category.lower():
                return category
        return "Other"


class ExtractionReply(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list, max_length=12)


class RelationReply(BaseModel):
    relation: Literal["duplicate", "refinement", "contradiction", "unrelated"]


@dataclass
class CriticalInfoOutcome:
    message_id: int
    triage_called: bool = False
    durable: bool = False
    extraction_called: bool = False
    stored: list[MemoryItem] = field(default_factory=list)
    reinforced: list[int] = field(default_factory=list)
    reason: str | None = None


@dataclass
class CallCounts:
    gated: int = 0
    triage: int = 0
    extraction: int = 0
    reconcile: int = 0


def name_the_subject(fact: str) -> str:
    """A fact must say whose it is: "has a PhD" becomes "The user has a PhD"."""
    fact = " ".join(fact.split()).strip()
    if fact and fact[0].islower():
        return f"The user {fact}"
    return fact


def normalised(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


class CriticalInfoProcessor:
    def __init__(
        self,
        *,
        client,
        memories: MemoryService,
        conversations: ConversationRepository,
        duplicate_similarity: float = 0.95,
        # WordLlama cosine between two facts on one subject ("lives in Paris" / "lives in
        # Berlin", "in Rome") is about 0.35-0.8; unrelated facts about the user score under 0.2.
        # Above this a reconcile call decides; below it the fact is simply new.
        related_similarity: float = 0.3,
    ) -> None:
        self.client = client
        self.memories = memories
        self.conversations = conversations
        self.duplicate_similarity = duplicate_similarity
        self.related_similarity = related_similarity
        self.counts = CallCounts()
        self._triage_prompt = resource_text("prompts", "triage.txt").strip()
        self._extraction_prompt = resource_text("prompts", "extraction.txt").strip()
        self._reconcile_prompt = resource_text("prompts", "reconcile.txt").strip()

    async def handle(self, job: Job) -> None:
        await self.process_message(int(job.payload["message_id"]))

    async def process_message(self, message_id: int) -> CriticalInfoOutcome:
        outcome = CriticalInfoOutcome(message_id)
        try:
            message = await self.conversations.get_message(message_id)
            conversation = await self.conversations.get(message.conversation_id)
        except NotFoundError:
            # The user deleted the conversation since the job was queued: nothing to
            # learn, and retrying would not bring the message back.
            outcome.reason = "the message was deleted"
            log.info("message %d: %s", message_id, outcome.reason)
            return outcome
        if message.role != "user":
            outcome.reason = "only the user's own words are mined for facts"
            return outcome
        if conversation.temporary:
            outcome.reason = "temporary conversation"
            return outcome
        if is_acknowledgement(message.content):
            self.counts.gated += 1
            outcome.reason = "acknowledgement"
            return outcome

        text = message.content[:MAX_MESSAGE_CHARS_FOR_EXTRACTION]
        outcome.triage_called = True
        self.counts.triage += 1
        triage = await self._ask(self._triage_prompt, text, TriageReply, "triage")
        if triage.value is None:
            outcome.reason = f"triage reply unusable: {triage.reason}"
            log.info("message %d: %s", message_id, outcome.reason)
            return outcome
        if not triage.value.durable_fact:
            outcome.reason = "triage: no durable fact"
            return outcome

        outcome.durable = True
        outcome.extraction_called = True
        self.counts.extraction += 1
        extraction = await self._ask(self._extraction_prompt, text, ExtractionReply, "extraction")
        if extraction.value is None:
            outcome.reason = f"extraction reply unusable: {extraction.reason}"
            log.info("message %d: %s", message_id, outcome.reason)
            return outcome
        seen: set[str] = set()
        for fact in extraction.value.facts:
            content = name_the_subject(fact.fact)
            if normalised(content) in seen or len(content) < 3:
                continue
            seen.add(normalised(content))
            await self._reconcile(message, content, fact, outcome)
        return outcome

    async def _ask(self, instructions: str, text: str, schema: type[BaseModel], role: str):
        messages = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": text},
        ]
        return await self.client.structured(messages, schema, role=role)

    async def _reconcile(
        self, message: Message, content: str, fact: ExtractedFact, outcome: CriticalInfoOutcome
    ) -> None:
        similar = await self._similar_facts(content)
        for existing, similarity in similar:
            relation = await self._relation(existing, content, similarity)
            try:
                if relation == "duplicate":
                    await self.memories.reinforce(
                        existing.id,
                        actor=ACTOR,
                        source_message_ids=[message.id],
                        confidence=fact.confidence,
                    )
                    outcome.reinforced.append(existing.id)
                    return
                if relation in ("refinement", "contradiction"):
                    stored = await self.memories.propose_change(
                        existing.id,
                        content,
                        actor=ACTOR,
                        category=fact.category,
                        confidence=fact.confidence,
                        sources=[message.id],
                        conversation_id=message.conversation_id,
                    )
                    outcome.stored.append(stored)
                    return
            except (InvalidInputError, NotFoundError) as error:
                # The user forgot or replaced that memory while the model was deciding:
                # it is no longer a current fact to build on. Failing the job would
                # re-run triage and extraction on retry; compare with the next one.
                log.info("memory %d changed during reconcile: %s", existing.id, error)
        stored = await self.memories.remember(
            content,
            kind=MemoryKind.FACT,
            category=fact.category,
            confidence=fact.confidence,
            origin=Origin.CRITICAL_INFO,
            actor=ACTOR,
            sources=[message.id],
            conversation_id=message.conversation_id,
        )
        outcome.stored.append(stored)

    async def _similar_facts(self, content: str) -> list[tuple[MemoryItem, float]]:
        """Active facts close enough in meaning to be the same subject, closest first."""
        matches = await self.memories.similar(content, k=5, kinds=[MemoryKind.FACT])
        return [(item, score) for item, score in matches if score >= self.related_similarity]

    async def _relation(self, existing: MemoryItem, content: str, similarity: float) -> str:
        if normalised(existing.content) == normalised(content):
            return "duplicate"
        if similarity >= self.duplicate_similarity:
            return "duplicate"
        self.counts.reconcile += 1
        prompt = self._reconcile_prompt.format(existing=existing.content, new=content)
        reply = await self.client.structured(
            [{"role": "user", "content": prompt}], RelationReply, role="extraction"
        )
        if reply.value is None:
            # Unsure: keep both rather than overwrite a memory on a guess.
            log.info("reconcile reply unusable (%s); storing the fact as new", reply.reason)
            return "unrelated"
        return reply.value.relation
