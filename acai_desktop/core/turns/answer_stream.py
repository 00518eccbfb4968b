"""The answer stream: a prompt's answer read from the model into the answer's row.

The streamed text lives in memory (:class:`AnswerText`, capped in size) until the answer
is saved; the saves along the way are queued beside the stream, never in its path, and
one the database refused (busy with another program's import) is just skipped. The
final save waits for the database as long as it takes, so a turn never ends with an
empty ``streaming`` row while its text was shown. The finish records what fed the
answer and announces it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.chat_settings import EffectiveSettings
from acai_desktop.core.errors import AcaiError, StoreError
from acai_desktop.core.events import EventBus, MessageDelta
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.models.chat_model import ChatModel
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.profile.server_check import is_store_lost
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import DatabaseBusyError
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns import unsaved_answers
from acai_desktop.core.turns.answer_filter import DelimiterFilter, PromptFrameFilter
from acai_desktop.core.turns.answer_text import AnswerText
from acai_desktop.core.turns.citations import citations_of
from acai_desktop.core.turns.turn_log import message_delta
from acai_desktop.core.turns.turn_result import TurnResult

log = logging.getLogger(__name__)

#: How often a streaming answer's partial text is written to disk.
PARTIAL_SAVE_SECONDS = 1.5
#: Between two tries of an answer's final save while the database stays busy.
FINAL_SAVE_PAUSE_SECONDS = 1.0


class AnswerStream:
    def __init__(
        self,
        conversations: ConversationRepository,
        provenance: ProvenanceRepository,
        memories: MemoryService,
        client: ChatModel,
        events: EventBus,
        *,
        prompt_frames: tuple[str, ...],
        answer_max_tokens: int | None = None,
    ) -> None:
        self.conversations = conversations
        self.provenance = provenance
        self.memories = memories
        self.client = client
        self.events = events
        #: The lines of the prompt's frame a model may echo (answer_filter).
        self.prompt_frames = prompt_frames
        #: The longest answer asked of the model, in tokens (None: the server's limit).
        self.answer_max_tokens = answer_max_tokens

    async def stream(
        self,
        answer: Message,
        context: BuiltContext,
        text: AnswerText,
        settings: EffectiveSettings,
        stats: StreamStats,
        *,
        client: ChatModel | None = None,
        model: str | None = None,
    ) -> None:
        """Read the answer's stream into ``text`` until it ends or is cut at the limit,
        with the chat's model and temperature (or the router's ``model``, reached by
        ``client``); the server's figures land in ``stats``."""
        saves = PartialSaves(self.conversations, answer.id)
        # A model that echoes its prompt must not show the user the prompt's block tags.
        delimiters = DelimiterFilter()
        # Nor the lines of its frame ("The user's message:", a section header, a
        # sentence of the system prompt).
        frames = PromptFrameFilter(self.prompt_frames)
        stream = (client or self.client).stream_chat(
            context.messages,
            role="chat",
            max_tokens=self.answer_max_tokens,
            temperature=settings.temperature,
            stats=stats,
            model=model or settings.own_model,
        )
        async with contextlib.aclosing(stream):  # a cut answer closes the stream at once
            async for chunk in stream:
                delta = frames.feed(delimiters.feed(chunk or ""))
                if not delta:
                    continue
                text.add(delta)
                if text.due_to_show():
                    self.show(answer, text)
                saves.maybe_save(text)
                if text.cut:
                    break
        if not text.cut and (rest := frames.feed(delimiters.flush()) + frames.flush()):
            text.add(rest)  # held back as a possible tag or frame, and it was none
        await saves.settled()

    def show(self, answer: Message, text: AnswerText) -> None:
        """Announce the text streamed since the last announcement (if any)."""
        added, content = text.show()
        if added:
            self.events.emit(
                ev.MessageUpdated(
                    MessageDelta(
                        answer.id, answer.conversation_id, added, content, MessageStatus.STREAMING
                    )
                )
            )

    def restart(self, answer: Message) -> None:
        """Announce that the answer's text starts again from nothing."""
        self.events.emit(ev.MessageUpdated(message_delta(answer, "")))

    async def finish(
        self,
        answer: Message,
        text: AnswerText,
        status: MessageStatus,
        error: str | None,
        result: TurnResult,
    ) -> Message:
        """Save the answer as it ended and what fed it (``result``'s memories and
        passages), then announce it."""
        self.show(answer, text)
        sources, evidence = result.memories_used, result.evidence_used
        content = text.text()
        finished = await self._save(
            answer.id,
            content=content,
            status=status,
            error=error,
            tokens=estimate_tokens(content),
            model=result.answered_by
            or (result.settings.model if result.settings else self.client.model_for("chat")),
            instructions=result.instructions,
            usage=result.usage,
            # How this answer was asked for is the answer's, not the question's: the
            # user's row is written once, when it is sent, and each answer version keeps
            # its own prompt's form of the question (and the plan it was made by).
            plan={
                **result.plan.to_dict(),
                **({"route": result.route} if result.route else {}),
                **({"withheld": result.withheld} if result.withheld else {}),
            },
            sent_content=result.asked_as,
        )
        if evidence:
            await self.provenance.record_evidence(answer.id, evidence)
        if sources:
            await self.provenance.record(answer.id, sources)
            with contextlib.suppress(AcaiError):
                await self.memories.mark_used(
                    [s.memory_id for s in sources if s.memory_id is not None]
                )
        # The last chunk's news carries the final status and the error, and a separate
        # event says the answer is done, so no listener has to read the row again.
        self.events.emit(ev.MessageUpdated(message_delta(finished, "")))
        citations = citations_of(evidence, sources, result.recalled)
        self.events.emit(
            ev.AnswerFinished(
                finished, tuple(sources), tuple(evidence), finished.instructions, citations
            )
        )
        return finished

    async def _save(self, answer_id: int, **changes) -> Message:
        """The answer's final save. Each try waits for a busy database (another
        program's import) for up to a minute; past that the text stays in memory and
        is tried again until it is written: the user saw it, so it must be kept."""
        while True:
            try:
                return await self.conversations.update_message(answer_id, **changes)
            except StoreError as error:
                if not isinstance(error, DatabaseBusyError):
                    if is_store_lost(error) and "content" in changes:
                        # Kept for the store's reopening (the turn says why, once).
                        unsaved_answers.hold(
                            self.conversations.store.path, answer_id, changes["content"]
                        )
                    raise
                log.warning(
                    "the database is still busy; answer %s is kept in memory and saved "
                    "when it frees",
                    answer_id,
                )
                await asyncio.sleep(FINAL_SAVE_PAUSE_SECONDS)


class PartialSaves:
    """Saves of a streaming answer's text now and then, so a crash loses at most the
    last second and a half of it. A save is queued on the database thread beside the
    stream (the stream never waits for the disk), one at a time: while one waits for a
    busy database, the next are skipped, and one that gave up is just logged, as the
    text is kept in memory for the final save."""

    def __init__(self, conversations: ConversationRepository, answer_id: int) -> None:
        self.conversations = conversations
        self.answer_id = answer_id
        self._last = time.monotonic()
        self._in_flight: asyncio.Future | None = None

    def maybe_save(self, text: AnswerText) -> None:
        if self._in_flight is not None and not self._in_flight.done():
            return
        if time.monotonic() - self._last < PARTIAL_SAVE_SECONDS:
            return
        self._last = time.monotonic()
        self._in_flight = self.conversations.queue_update(self.answer_id, content=text.text())
        self._in_flight.add_done_callback(_log_skipped_save)

    async def settled(self) -> None:
        """Wait for the save in flight (it must not land after the final one)."""
        if self._in_flight is not None:
            await asyncio.wait([self._in_flight])


def _log_skipped_save(future: asyncio.Future) -> None:
    error = None if future.cancelled() else future.exception()
    if isinstance(error, AcaiError):  # busy, full disk...: the final save tells the user
        log.info("a partial save of an answer was skipped: %s", error)
    elif error is not None:
        log.error("a partial save of an answer failed", exc_info=error)
