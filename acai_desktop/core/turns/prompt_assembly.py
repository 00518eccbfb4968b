"""Prompt assembly: the prompt for a user's message, as of a point in time.

It reads what the turn needs (the chat's settings and path, its summaries, pinned and
bearing facts, the ranking of memories and past messages, document passages, custom
instructions) and hands them to the context builder, which packs them within the
chat's budget. It also has a local server read the next prompt's known start while
the user reads and types (core.models.prompt_warmer).
"""

from __future__ import annotations

import functools
from datetime import datetime

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.conversations.chat_settings import (
    EffectiveSettings,
    ProfileChatDefaults,
    effective_settings,
)
from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.instructions_service import InstructionsService
from acai_desktop.core.documents.model import RetrievedPassage
from acai_desktop.core.documents.prompt_block import EVIDENCE_K, EVIDENCE_MIN_SCORE
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.memory.context_builder import (
    MEMORY_SHARE,
    RECALL_SHARE,
    BuiltContext,
    build_context,
    recall_reach,
)
from acai_desktop.core.memory.fact_review import FactAges
from acai_desktop.core.memory.prompt_history import history_room, stable_start
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMemory
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.models.chat_model import ChatModel
from acai_desktop.core.models.prompt_warmer import PromptWarmer, same_start
from acai_desktop.core.records.conversations import Conversation, Message, MessageStatus
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.resources import resource_text
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.local_only import NOTHING, LocalOnly
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.turns.planner import Plan


class PromptAssembly:
    def __init__(
        self,
        conversations: ConversationRepository,
        memories: MemoryService,
        retriever: HybridRetriever,
        client: ChatModel,
        *,
        budget_tokens: int = 3000,
        recall_share: float = RECALL_SHARE,
        memory_share: float = MEMORY_SHARE,
        documents: DocumentService | None = None,
        instructions: InstructionsService | None = None,
        chat_settings: ChatSettingsService | None = None,
        warmer: PromptWarmer | None = None,
        ages: FactAges | None = None,
    ) -> None:
        self.conversations = conversations
        self.memories = memories
        self.retriever = retriever
        self.client = client
        #: The profile's context budget (a chat may have its own: chat_settings).
        self.budget_tokens = budget_tokens
        #: The shares of the budget recalled messages and memories may take
        #: (context_builder: smaller for a model that reads prompts slowly).
        self.recall_share, self.memory_share = recall_share, memory_share
        #: The user's documents, searched for evidence in every turn (None: no documents).
        self.documents = documents
        #: The user's custom instructions (None: none are read, as in evaluations).
        self.instructions = instructions
        #: Each chat's own model settings (None: every chat uses the profile's, as in
        #: evaluations).
        self.chat_settings = chat_settings
        #: Has a local server read the next prompt's known start while the user reads
        #: and types (None: the server keeps no prompt, or bills for the request).
        self.warmer = warmer
        #: How long facts are worth believing unasked (core/memory/fact_ages.py): a fact
        #: past it is quoted "as of" its date.
        self.ages = ages or FactAges()
        self.system_prompt = resource_text("prompts", "system.txt").strip()

    async def settings_for(self, conversation_id: int | None) -> EffectiveSettings:
        """The model, temperature and context budget a chat's turns run with."""
        if self.chat_settings is not None:
            return await self.chat_settings.in_effect(conversation_id)
        profile = ProfileChatDefaults(self.client.model_for("chat"), self.budget_tokens)
        return effective_settings(profile)

    def history_room(self) -> int:
        """The tokens a prompt's history may take (see context_builder.history_room)."""
        return history_room(self.system_prompt, self.budget_tokens)

    async def own_history_room(self, conversation_id: int) -> int | None:
        """The history room of a chat whose context budget is its own (None: it uses the
        profile's, see :meth:`history_room`); the summary processor folds by it."""
        settings = await self.settings_for(conversation_id)
        # An automatic budget follows the chat's model: the profile's rule, its own number.
        if settings.context_budget_tokens == self.budget_tokens:
            return None
        return history_room(self.system_prompt, settings.context_budget_tokens)

    def warm_session_start(self) -> None:
        """Have the server read the system message (with the profile's instructions)
        now, so the session's first message reads only itself."""
        if self.warmer is not None:
            self.warmer.warm(self._session_start)

    async def _session_start(self) -> list[dict]:
        instructions = await self.instructions.for_new_chat() if self.instructions else None
        return stable_start(
            system_prompt=self.system_prompt,
            budget_tokens=self.budget_tokens,
            instructions=instructions,
        )

    def warm_next_start(
        self,
        conversation: Conversation,
        context: BuiltContext,
        answer: Message,
        settings: EffectiveSettings | None,
    ) -> None:
        """After an answer, when the next turn's prompt won't start with what the server
        has just read (the history overflowed its room: the next turn cuts its oldest
        messages), have the server read that start while the user reads and types."""
        if self.warmer is None or settings is None:
            return
        if answer.status not in (MessageStatus.COMPLETE, MessageStatus.STOPPED):
            return
        read = [*context.messages, {"role": "assistant", "content": answer.content}]

        async def next_start() -> list[dict] | None:
            history = await self.conversations.messages(conversation.id)
            start = stable_start(
                system_prompt=self.system_prompt,
                budget_tokens=settings.context_budget_tokens,
                recent_messages=[m for m in history if m.folded_into is None],
                instructions=(
                    await self.instructions.in_effect(conversation.id)
                    if self.instructions
                    else None
                ),
            )
            return None if same_start(read, start) else start

        self.warmer.warm(next_start, model=settings.own_model)

    async def build(
        self,
        conversation: Conversation,
        user_message: Message,
        plan: Plan,
        *,
        as_of: datetime | None = None,
        budget_tokens: int | None = None,
        withhold: LocalOnly = NOTHING,
    ) -> tuple[BuiltContext, dict[int, MemoryItem]]:
        """The prompt for answering ``user_message``, and each memory that was offered
        for it, by id (the recalled messages are in the context's ``recalled``), within
        ``budget_tokens`` (None: the profile's budget).

        The conversation is its shown path up to ``user_message`` (another branch's
        messages and summaries stay out). ``as_of`` (a regenerated answer: the
        question's time): memories created or changed after it are left out, pinned
        ones and summaries too; the messages a later summary folded come back whole.
        ``withhold``: what must stay out (local only, for a model that runs elsewhere:
        core/turns/privacy.py); the ranking fills their places with others."""

        known_then = functools.partial(known_at, as_of)
        all_summaries = await self.memories.list(
            MemoryFilter(
                kinds=[MemoryKind.SUMMARY],
                statuses=[MemoryStatus.ACTIVE],
                conversation_id=conversation.id,
            )
        )
        # The chat's project's memory and what is outside every project; never another
        # project's (a chat outside any project sees only the latter).
        scope = ProjectScope(conversation.project_id)
        pinned = [
            m
            for m in await self.retriever.pinned(scope)
            if known_then(m) and m.id not in withhold.memory_ids
        ]
        history = await self.conversations.messages(conversation.id)
        earlier = [m for m in history if m.id < user_message.id]
        later_summaries = {s.id for s in all_summaries if not known_then(s)}
        # The summaries that stand for this path's earlier messages, as they were then.
        folded_here = {m.folded_into for m in earlier if m.folded_into is not None}
        summaries = [
            s
            for s in all_summaries
            if s.id in folded_here
            and s.id not in later_summaries
            and s.id not in withhold.memory_ids
        ]
        unfolded = [m for m in history if m.folded_into is None or m.folded_into in later_summaries]
        recent = [m for m in unfolded if m.id < user_message.id]
        # This conversation's summaries go in anyway, and so do its recent messages (the
        # short-term context): don't spend retrieval slots on them.
        bearing = await self.retriever.bearing_facts(
            user_message.content,
            scope,
            exclude_ids=[*(p.id for p in pinned), *withhold.memory_ids],
            known_then=known_then,
        )
        budget = budget_tokens or self.budget_tokens
        retrieved = await self.retriever.search(
            user_message.content,
            k=plan.retrieval_k,
            reach=recall_reach(budget, self.recall_share),
            # "Last week" counts from when the message was written (a regenerated answer's
            # question: then, not now).
            now=parse_utc(user_message.created_at),
            exclude_ids=[s.id for s in summaries]
            + [p.id for p in pinned]
            + [memory.id for memory, _ in bearing]
            + list(withhold.memory_ids),
            conversation_id=conversation.id,
            exclude_message_ids=[m.id for m in unfolded] + list(withhold.message_ids),
            as_of=as_of,
            scope=scope,
        )
        evidence = [
            hit
            for hit in await self.evidence(conversation, user_message)
            if hit.passage.document_id not in withhold.document_ids
        ]
        instructions = (
            await self.instructions.in_effect(conversation.id) if self.instructions else None
        )
        offered = {m.id: m for m in [*pinned, *(memory for memory, _ in bearing), *summaries]}
        offered.update({h.memory.id: h.memory for h in retrieved if isinstance(h, RetrievedMemory)})
        # Aged as of the question (a regenerated answer's: then, not now).
        asked_at = parse_utc(user_message.created_at)
        stale = await self.ages.stale_marks(list(offered.values()), asked_at)
        context = build_context(
            instructions=instructions,
            system_prompt=self.system_prompt,
            evidence=evidence,
            user_message=user_message.content,
            pinned=pinned,
            bearing=bearing,
            retrieved=retrieved,
            summaries=summaries,
            recent_messages=recent,
            budget_tokens=budget,
            recall_share=self.recall_share,
            memory_share=self.memory_share,
            stale=stale,
        )
        return context, offered

    async def evidence(
        self, conversation: Conversation, user_message: Message
    ) -> list[RetrievedPassage]:
        """Passages of the user's documents for this turn, within the conversation's
        document scope; weak matches are left out (see EVIDENCE_MIN_SCORE)."""
        if self.documents is None:
            return []
        found = await self.documents.evidence_for(
            conversation.id, user_message.content, k=EVIDENCE_K
        )
        return [hit for hit in found if hit.score >= EVIDENCE_MIN_SCORE]


def known_at(as_of: datetime | None, memory: MemoryItem) -> bool:
    """Whether ``memory`` was as it is now at ``as_of`` (None: now)."""
    if as_of is None:
        return True
    return parse_utc(memory.created_at) <= as_of and parse_utc(memory.updated_at) <= as_of
