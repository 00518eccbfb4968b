"""An answer's prompt made again as it was built: its question, as of the question's time,
in its chat's scope and budget, withholding what the turn withheld, through the very
prompt assembly a turn runs (core/turns/prompt_assembly.py). Taps on the ranking and on
the document search keep what each returned, so the replay knows every item the turn
ranked, where, and what the relevance floor read of it, beside the prompt that came
of them. Nothing is written.

An item the turn did not rank (past the depth its budget reads) is looked for by the
same searches with the same parameters, read deeper (:meth:`Replay.deeper`,
:meth:`Replay.deeper_passages`): the real ranking, not a copy of it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from datetime import datetime

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.documents.model import RetrievedPassage
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.memory.retrieval import HybridRetriever, Retrieved
from acai_desktop.core.records.conversations import Conversation, Message
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.local_only import NOTHING, LocalOnly
from acai_desktop.core.turns.planner import plan_message
from acai_desktop.core.turns.prompt_assembly import PromptAssembly

#: How deep the ranking is read again for an item the turn did not rank (each tier).
DEEPER_REACH = 1000
#: How many passages the document search is asked again for such a passage.
DEEPER_PASSAGES = 200


class RankingTap:
    """The retriever as a prompt assembly uses it, keeping what each call returned."""

    def __init__(self, retriever: HybridRetriever) -> None:
        self.retriever = retriever
        self.asked: tuple[str, int, dict] | None = None
        self.hits: list[Retrieved] = []
        self.pinned_seen: list[MemoryItem] = []
        self.bearing: list[tuple[MemoryItem, str]] = []

    async def pinned(self, scope: ProjectScope | None = None) -> list[MemoryItem]:
        self.pinned_seen = await self.retriever.pinned(scope)
        return self.pinned_seen

    async def bearing_facts(
        self, query: str, scope=None, **options
    ) -> list[tuple[MemoryItem, str]]:
        self.bearing = await self.retriever.bearing_facts(query, scope, **options)
        return self.bearing

    async def search(self, query: str, k: int = 10, **options) -> list[Retrieved]:
        self.asked = (query, k, options)
        self.hits = await self.retriever.search(query, k, **options)
        return self.hits


class EvidenceTap:
    """The document service as a prompt assembly uses it, keeping what it found."""

    def __init__(self, documents: DocumentService) -> None:
        self.documents = documents
        self.asked: tuple[int, str] | None = None
        self.found: list[RetrievedPassage] = []

    async def evidence_for(self, conversation_id: int, query: str, k: int = 5):
        self.asked = (conversation_id, query)
        self.found = await self.documents.evidence_for(conversation_id, query, k=k)
        return self.found


@dataclass
class Replay:
    """An answer's turn as replayed: the prompt, and what each search returned."""

    answer: Message
    question: Message
    conversation: Conversation
    as_of: datetime
    budget_tokens: int
    #: How many of each tier the floor judges at its usual bar (the plan's).
    retrieval_k: int
    context: BuiltContext
    #: Every memory offered for the prompt (pinned, bearing, summaries, ranked), by id.
    offered: dict[int, MemoryItem]
    ranking: RankingTap
    evidence: EvidenceTap | None
    #: What the turn withheld as local only (its plan's ``withheld``), and why.
    withheld: LocalOnly
    withheld_reason: str
    recall_share: float
    memory_share: float

    @property
    def hits(self) -> list[Retrieved]:
        return self.ranking.hits

    @property
    def passages(self) -> list[RetrievedPassage]:
        return self.evidence.found if self.evidence is not None else []

    @property
    def reach(self) -> int:
        """How deep the turn read each tier of the ranking."""
        _query, k, options = self.ranking.asked or ("", 0, {})
        return max(k, options.get("reach") or 0)

    async def deeper(self) -> list[Retrieved]:
        """The turn's search again, with the same parameters, read deeper."""
        if self.ranking.asked is None:
            return []
        query, k, options = self.ranking.asked
        return await self.ranking.retriever.search(query, k, **{**options, "reach": DEEPER_REACH})

    async def deeper_passages(self) -> list[RetrievedPassage]:
        """The turn's document search again, asked for more passages."""
        if self.evidence is None or self.evidence.asked is None:
            return []
        conversation_id, query = self.evidence.asked
        return await self.evidence.documents.evidence_for(conversation_id, query, k=DEEPER_PASSAGES)


async def replay_turn(
    prompts: PromptAssembly, conversations: ConversationRepository, answer_id: int
) -> Replay:
    """The prompt of answer ``answer_id`` made again as of its question's time.
    InvalidInputError when the message is not an answer; NotFoundError when it is gone."""
    answer = await conversations.get_message(answer_id)
    if answer.role != "assistant":
        raise InvalidInputError(f"Message {answer_id} is not an answer; give an answer's id.")
    question = await question_of(conversations, answer)
    conversation = await conversations.get(answer.conversation_id)
    settings = await prompts.settings_for(conversation.id)
    plan = plan_message(question.content)
    stored_k = (answer.plan or {}).get("retrieval_k")
    if isinstance(stored_k, int) and stored_k > 0:
        plan = replace(plan, retrieval_k=stored_k)  # the turn's, whatever the planner says now
    withheld, reason = withheld_of(answer.plan)
    ranking = RankingTap(prompts.retriever)
    evidence = EvidenceTap(prompts.documents) if prompts.documents is not None else None
    replaying = copy.copy(prompts)
    replaying.retriever, replaying.documents, replaying.warmer = ranking, evidence, None
    as_of = parse_utc(question.created_at)
    context, offered = await replaying.build(
        conversation,
        question,
        plan,
        as_of=as_of,
        budget_tokens=settings.context_budget_tokens,
        withhold=withheld,
    )
    return Replay(
        answer,
        question,
        conversation,
        as_of,
        settings.context_budget_tokens,
        plan.retrieval_k,
        context,
        offered,
        ranking,
        evidence,
        withheld,
        reason,
        prompts.recall_share,
        prompts.memory_share,
    )


async def question_of(conversations: ConversationRepository, answer: Message) -> Message:
    """The user message ``answer`` answers: its parent, or (a message written without
    one) the last user message before it."""
    if answer.parent_id is not None:
        parent = await conversations.get_message(answer.parent_id)
        if parent.role == "user":
            return parent
    history = await conversations.messages(answer.conversation_id, include_hidden=True)
    asked = [m for m in history if m.id < answer.id and m.role == "user"]
    if not asked:
        raise InvalidInputError(f"Answer {answer.id} answers no message of yours.")
    return asked[-1]


def withheld_of(plan: dict | None) -> tuple[LocalOnly, str]:
    """What an answer's plan says its turn withheld as local only, and why."""
    record = (plan or {}).get("withheld")
    if not isinstance(record, dict):
        return NOTHING, ""

    def ids(key: str) -> frozenset[int]:
        found = record.get(key)
        return (
            frozenset(i for i in found if isinstance(i, int))
            if isinstance(found, list)
            else frozenset()
        )

    return (
        LocalOnly(ids("memory_ids"), ids("message_ids"), ids("document_ids")),
        str(record.get("reason") or ""),
    )
