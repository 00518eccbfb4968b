"""SummaryLearner: fold the oldest part of a long conversation into a summary memory.

The block is what the chat prompt has already left out (``prompt_room``: the tokens the
prompt's history may take; see ``prompt_history.left_out_of_prompt``): the summary then
stands for messages the model no longer sees, and folding them changes nothing in the
prompt's start, which a server that keeps what it read relies on. It is summarised by
the summary model, stored as a long-term ``summary`` memory whose sources are those
messages, and the messages are marked ``folded_into`` it. The transcript keeps every
message; only the prompt stops carrying their raw text.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from acai_desktop.core.errors import ModelReplyError, NotFoundError
from acai_desktop.core.learning.learning_models import LearningModels
from acai_desktop.core.memory.prompt_history import left_out_of_prompt
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryKind, Origin
from acai_desktop.core.resources import resource_text
from acai_desktop.core.store.conversation_repository import ConversationRepository

log = logging.getLogger(__name__)

ACTOR = Actor.SUMMARY_PROCESSOR
#: Fewer messages than this are not worth a summary call yet.
MIN_FOLDED = 2
#: The history's room in a default prompt (the app sets the real one: see Orchestrator).
DEFAULT_PROMPT_ROOM = 1500
#: A summary longer than this many characters is cut: it must stay cheaper than its source.
MAX_SUMMARY_CHARS = 4000


class SummaryLearner:
    def __init__(
        self,
        *,
        client,
        memories: MemoryService,
        conversations: ConversationRepository,
        max_words: int = 150,
        prompt_room: int = DEFAULT_PROMPT_ROOM,
        models: LearningModels | None = None,
    ) -> None:
        self.client = client
        #: Which model each summary asks (None: ``client``'s, for every chat).
        self.models = models or LearningModels(client)
        self.memories = memories
        self.conversations = conversations
        self.max_words = max_words
        self.prompt_room = prompt_room
        #: The history room of a chat whose context budget is its own (None back: the
        #: profile's, ``prompt_room``): the fold follows what that chat's prompt left out.
        self.chat_room: Callable[[int], Awaitable[int | None]] | None = None
        self._template = resource_text("prompts", "summary.txt")

    async def handle(self, job: Job) -> None:
        await self.summarise_if_needed(int(job.payload["conversation_id"]))

    def block_to_fold(self, unfolded: list[Message], room: int | None = None) -> list[Message]:
        """The oldest messages to fold: those the prompt has left out (none while the
        conversation fits the prompt, or only one message did not); ``room``: the
        history's room in the chat's prompt (None: ``prompt_room``)."""
        left_out = left_out_of_prompt(unfolded, self.prompt_room if room is None else room)
        return left_out if len(left_out) >= MIN_FOLDED else []

    async def summarise_if_needed(self, conversation_id: int) -> MemoryItem | None:
        try:
            conversation = await self.conversations.get(conversation_id)
        except NotFoundError:
            # Deleted since the job was queued: nothing left to summarise.
            log.info("conversation %d was deleted; no summary", conversation_id)
            return None
        if conversation.temporary:
            return None
        unfolded = await self.conversations.messages(conversation_id, include_folded=False)
        room = await self.chat_room(conversation_id) if self.chat_room is not None else None
        block = self.block_to_fold(unfolded, room)
        if not block:
            return None
        message_ids = [m.id for m in block]
        # A crash between storing a summary and folding its messages leaves a summary
        # whose sources are exactly this block: fold into it instead of paying again.
        existing = await self.conversations.summary_covering(message_ids)
        if existing is not None:
            await self.conversations.fold(message_ids, existing)
            return await self.memories.get(existing)

        try:
            learning = await self.models.for_chat(conversation_id)
        except NotFoundError:
            return None  # deleted meanwhile: nothing left to summarise
        if learning is None:
            # A local-only chat with no model on this computer: its messages stay whole
            # (the prompt keeps cutting its oldest); nothing is sent elsewhere.
            log.info(
                "conversation %d is local only; no model here to summarise it", conversation_id
            )
            return None
        transcript = "\n".join(f"{m.role}: {m.content}" for m in block)
        prompt = self._template.format(max_words=self.max_words, transcript=transcript)
        summary = await learning.client.complete(
            [{"role": "user", "content": prompt}], role="summary", model=learning.model
        )
        summary = " ".join(summary.split())[:MAX_SUMMARY_CHARS]
        if len(summary) < 10:
            # Raising makes the job runner retry later; nothing was written.
            raise ModelReplyError("The summary model returned an empty summary.")
        memory = await self.memories.remember(
            summary,
            kind=MemoryKind.SUMMARY,
            category="Conversation",
            confidence=1.0,
            origin=Origin.SUMMARY,
            actor=ACTOR,
            sources=message_ids,
            conversation_id=conversation_id,
            explicit=True,
        )
        await self.conversations.fold(message_ids, memory.id)
        log.info(
            "conversation %d: folded %d messages into summary %d",
            conversation_id,
            len(message_ids),
            memory.id,
        )
        return memory
