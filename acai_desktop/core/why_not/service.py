""" "Why didn't you use …?" for the window and the command line: replay an answer's turn
(core/why_not/replay.py), find the item the user means (by id, or by words: items.py),
say why it fed the answer or not (causes.py) with the fixes that apply, and apply one
on the user's click (fixes.py).

The window builds it from its running assistant (:func:`why_not_of`); the command line
opens a profile's store for it (:func:`open_why_not`), without the profile lock, as
the other ``memories`` actions do: it only reads."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.store import projects as project_rows
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.interface import MemoryStore as Store
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns.prompt_assembly import PromptAssembly
from acai_desktop.core.why_not.causes import Finding, Recorded, why_memory, why_message
from acai_desktop.core.why_not.items import find_items, memory_ref, message_ref, passage_ref
from acai_desktop.core.why_not.passage_causes import why_passage
from acai_desktop.core.why_not.replay import Replay, question_of, replay_turn
from acai_desktop.core.why_not.result import ItemKind, ItemRef, Reason, WhyNot

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.models.embeddings.base import Embedder
    from acai_desktop.core.profile.paths import Profile

NOTHING_HOLDS = "Nothing in memory, your chats or your documents holds these words."


class WhyNotService:
    def __init__(
        self,
        prompts: PromptAssembly,
        conversations: ConversationRepository,
        provenance: ProvenanceRepository,
        memory: Memory,
        documents: DocumentService | None,
        store: Store,
    ) -> None:
        self._prompts = prompts
        self._conversations = conversations
        self._provenance = provenance
        self._memory = memory
        self._documents = documents
        self._store = store

    async def explain(self, answer_id: int, kind: ItemKind | str, item_id: int) -> WhyNot:
        """Why the memory, message or passage (chunk) ``item_id`` fed answer
        ``answer_id`` or not. NotFoundError when either is gone; InvalidInputError when
        ``answer_id`` is no answer."""
        kind = ItemKind(kind)
        replay = await replay_turn(self._prompts, self._conversations, answer_id)
        recorded = Recorded(
            await self._provenance.sources_of_answer(answer_id),
            await self._provenance.evidence_of_answer(answer_id),
        )
        if kind == ItemKind.MEMORY:
            memory = await self._memory.get(item_id)
            ref = memory_ref(memory)
            finding = await why_memory(replay, memory, recorded, self)
        elif kind == ItemKind.MESSAGE:
            message = await self._conversations.get_message(item_id)
            chat = await self.conversation(message.conversation_id)
            speaker = message.author or ("You" if message.role == "user" else "ACAI")
            ref = message_ref(message.id, message.content, speaker, chat.title)
            finding = await why_message(replay, message, recorded, self)
        else:
            passage = await self._documents.passage(item_id) if self._documents else None
            if passage is None:
                raise NotFoundError(f"No document passage with id {item_id}.")
            document = await self._documents.get(passage.document_id)
            where = document.name + (f", p. {passage.page}" if passage.page else "")
            ref = passage_ref(passage.chunk_id, passage.content, where)
            finding = await why_passage(replay, passage, document, recorded, self)
        return _result(replay, ref, finding)

    async def explain_words(self, answer_id: int, words: str) -> WhyNot:
        """Why the item that best holds ``words`` (pasted, or typed) fed the answer or
        not; ``not_found`` with no item when nothing holds them."""
        found = await self.find(words, limit=1, answer_id=answer_id)
        if found:
            result = await self.explain(answer_id, found[0].kind, found[0].id)
            return replace(result, pasted=words)
        answer = await self._conversations.get_message(answer_id)
        question = await question_of(self._conversations, answer)
        return WhyNot(
            answer_id, None, Reason.NOT_FOUND, NOTHING_HOLDS, question.content,
            question.created_at, pasted=words,
        )  # fmt: skip

    async def find(
        self, words: str, limit: int = 12, *, answer_id: int | None = None
    ) -> list[ItemRef]:
        """Memories, messages and passages that hold ``words``, best first (to pick);
        for ``answer_id``, neither that answer nor its question (they hold the words the
        user copies, and are no candidates)."""
        leave_out: set[int] = set()
        if answer_id is not None:
            answer = await self._conversations.get_message(answer_id)
            leave_out = {answer.id, (await question_of(self._conversations, answer)).id}
        found = await find_items(
            self._memory, self._conversations, self._documents, words, limit + len(leave_out)
        )
        return [ref for ref in found if not (ref.kind == ItemKind.MESSAGE and ref.id in leave_out)][
            :limit
        ]

    # -- what deciding reads beside the replay (causes.Lookups) -----------------------

    async def project_name(self, project_id: int) -> str:
        return (await self._store.run(project_rows.fetch_project, project_id)).name

    async def conversation(self, conversation_id: int) -> Conversation:
        return await self._conversations.get(conversation_id)

    async def memory(self, memory_id: int) -> MemoryItem | None:
        with contextlib.suppress(NotFoundError):
            return await self._memory.get(memory_id)
        return None

    async def memories_from(self, message_id: int) -> list[MemoryItem]:
        return await self._memory.stored_from_messages([message_id])

    async def evidence_scope(self, conversation_id: int) -> tuple[list[int] | None, list[int]]:
        return await self._store.run(project_rows.evidence_documents_for_chat, conversation_id)


def _result(replay: Replay, ref: ItemRef, finding: Finding) -> WhyNot:
    ranked = finding.ranked
    return WhyNot(
        replay.answer.id,
        ref,
        finding.reason,
        finding.sentence,
        replay.question.content,
        replay.question.created_at,
        rank=ranked.rank if ranked else None,
        score=ranked.score if ranked else None,
        floor=ranked.bar if ranked and ranked.evidence is not None else None,
        evidence=ranked.evidence if ranked else None,
        fixes=finding.fixes,
        details={**finding.details, "budget_tokens": replay.budget_tokens, "reach": replay.reach},
    )


def why_not_of(assistant: Assistant) -> WhyNotService:
    """The service over a running assistant: its own prompt assembly and searches."""
    return WhyNotService(
        assistant.orchestrator.prompts,
        assistant._conversation_repository,
        assistant._provenance,
        assistant.memories,
        assistant.documents,
        assistant._store,
    )


@asynccontextmanager
async def open_why_not(
    profile: Profile, *, embedder: Embedder | None = None
) -> AsyncIterator[WhyNotService]:
    """The service over a profile's store, opened here and closed on exit, with the
    profile's saved model settings (its budget and prompt shares) and no model: it asks
    none. ``embedder``: WordLlama unless given, as the other ``memories`` actions."""
    from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
    from acai_desktop.core.conversations.instructions_service import InstructionsService
    from acai_desktop.core.errors import ModelNotChosenError, ModelSettingsError
    from acai_desktop.core.events import EventBus
    from acai_desktop.core.memory.context_builder import prompt_shares
    from acai_desktop.core.memory.front_door import memory_on
    from acai_desktop.core.models.chat_model import NoModelClient
    from acai_desktop.core.models.settings import ModelSettings, load_model_settings
    from acai_desktop.core.models.window_probe import ContextWindows
    from acai_desktop.core.profile.store_opening import open_profile_store

    if embedder is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    try:
        settings = load_model_settings(profile.ensure().settings_path) or ModelSettings()
    except ModelSettingsError:  # damaged: the defaults' budget, as the window does
        settings = ModelSettings()
    store = await open_profile_store(profile)
    try:
        events = EventBus()
        memory = await memory_on(store, embedder, events, reembed=False)
        documents = DocumentService(store, embedder, events)
        await documents.load()
        chat_settings = ChatSettingsService(
            store,
            settings.chat_defaults(settings.model_for("chat")),
            ContextWindows(settings.provider),  # no server is asked: the known table
        )
        conversations = ConversationRepository(store)
        prompts = PromptAssembly(
            conversations,
            memory,
            memory.retriever,
            NoModelClient(ModelNotChosenError("memories why asks no model")),
            budget_tokens=(await chat_settings.in_effect(None)).context_budget_tokens,
            documents=documents,
            instructions=InstructionsService(store, events),
            chat_settings=chat_settings,
            **prompt_shares(settings.uses_bundled_model()),
        )
        yield WhyNotService(
            prompts, conversations, ProvenanceRepository(store), memory, documents, store
        )
    finally:
        await store.close()
