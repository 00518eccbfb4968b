"""The turn log: the only writer of a chat's turns, branches and answer versions, and
of their news.

A user's message goes on disk with the jobs that learn from it in one transaction
(``ConversationRepository.add_turn``), before anything is asked of a model: whatever
becomes of the answer, the message is kept. An edit branches the chat there; a retry
of an answer with text adds a version beside it. Each says so on the bus, and recall
follows what is shown.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.chat_settings import ChatSettings, clean_chat_settings
from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.title_job import title_job
from acai_desktop.core.conversations.transcript import recall_follows, transcript_changed
from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus, MessageDelta
from acai_desktop.core.memory.episodic import EpisodicIndex
from acai_desktop.core.profile.server_check import is_store_lost
from acai_desktop.core.records.conversations import Conversation, Message, MessageStatus
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import DatabaseBusyError
from acai_desktop.core.store.jobs import JobSpec
from acai_desktop.core.store.message_tree import add_answer_version, add_branch

log = logging.getLogger(__name__)

#: Longest user message accepted, in characters. Longer text is refused before
#: anything is written, and the UI keeps it in the composer.
MAX_MESSAGE_CHARS = 100_000


@dataclass(frozen=True)
class Turn:
    """A user's message on disk and the answer row that waits for its text."""

    conversation: Conversation
    question: Message
    answer: Message
    job_ids: tuple[int, ...] = ()


class TurnLog:
    def __init__(
        self,
        conversations: ConversationRepository,
        episodes: EpisodicIndex,
        events: EventBus,
        *,
        attachments: ChatAttachments | None = None,
        chat_settings: ChatSettingsService | None = None,
        announce_jobs: bool = False,
    ) -> None:
        self.conversations = conversations
        self.episodes = episodes
        self.events = events
        #: Files attached in the composer: a message waits until they are indexed.
        self.attachments = attachments
        #: Where a new chat's own settings go (None: chats have none, as in evaluations).
        self.chat_settings = chat_settings
        #: Whether a job runner works this profile's queue, so queued jobs are news
        #: (without one, as when no model could be started, they wait for the next start).
        self.announce_jobs = announce_jobs

    async def start(
        self,
        conversation_id: int | None,
        text: str,
        *,
        temporary: bool = False,
        attachment_ids: Sequence[int] = (),
        settings: ChatSettings | None = None,
        project_id: int | None = None,
        local_only: bool = False,
    ) -> Turn:
        """A new user message, in a new conversation when ``conversation_id`` is None
        (see Orchestrator.send). InvalidInputError before any write."""
        text = validate_user_message(text)
        if settings is not None:
            settings = clean_chat_settings(
                settings.model,
                settings.temperature,
                settings.context_budget_tokens,
                settings.routing,
            )
        if self.attachments is not None:
            await self.attachments.wait_ready(
                await self.attachments.to_wait_for(conversation_id, attachment_ids)
            )
        if conversation_id is None:
            conversation = await self._new_conversation(
                temporary, project_id, attachment_ids, settings, local_only
            )
        else:
            conversation = await self.conversations.get(conversation_id)
        try:
            turn = await self.conversations.add_turn(
                conversation.id, text, functools.partial(turn_jobs, conversation)
            )
        except DatabaseBusyError as error:
            # Busy for over a minute (a long import elsewhere): nothing was written; the
            # caller keeps the text (the window leaves it in the composer).
            raise DatabaseBusyError(
                f"{error} Your message was not saved; send it again in a moment."
            ) from error
        # Its title (from a first message) and its place in the list (now the latest).
        self.events.emit(ev.ConversationChanged(turn.conversation))
        self.events.emit(ev.MessageAdded(turn.user_message))
        self.events.emit(ev.MessageAdded(turn.answer))
        self._announce(turn.jobs)
        return Turn(conversation, turn.user_message, turn.answer, tuple(turn.job_ids))

    async def _new_conversation(
        self,
        temporary: bool,
        project_id: int | None,
        attachment_ids: Sequence[int],
        settings: ChatSettings | None,
        local_only: bool,
    ) -> Conversation:
        conversation = await self.conversations.create(
            temporary=temporary, project_id=project_id, local_only=local_only
        )
        if attachment_ids and self.attachments is not None:
            await self.attachments.bind(attachment_ids, conversation.id)
        if settings is not None and not settings.empty and self.chat_settings is not None:
            await self.chat_settings.set_for_chat(
                conversation.id,
                model=settings.model,
                temperature=settings.temperature,
                context_budget_tokens=settings.context_budget_tokens,
                routing=settings.routing,
            )
        self.events.emit(ev.ConversationCreated(conversation))
        return conversation

    async def branch(self, user_message_id: int, text: str) -> Turn:
        """The user's edit of one of their messages: the chat branches there (see
        Orchestrator.edit). InvalidInputError before any write."""
        text = validate_user_message(text)
        old = await self.conversations.get_message(user_message_id)
        if old.role != "user":
            raise InvalidInputError(f"Message {user_message_id} is not yours; it can't be edited.")
        conversation = await self.conversations.get(old.conversation_id)
        try:
            branch = await self.conversations.store.run(
                add_branch, old.id, text, functools.partial(processor_jobs, conversation)
            )
        except DatabaseBusyError as error:  # nothing written; the composer keeps the text
            raise DatabaseBusyError(
                f"{error} Your edit was not saved; send it again in a moment."
            ) from error
        turn = branch.turn
        await recall_follows(self.episodes, branch.change)
        self.events.emit(await transcript_changed(self.conversations, conversation.id))
        self.events.emit(ev.MessageAdded(turn.user_message))  # the composer hears it was sent
        self.events.emit(ev.ConversationChanged(turn.conversation))  # moved up the list
        self._announce(turn.jobs)
        return Turn(conversation, turn.user_message, turn.answer, tuple(turn.job_ids))

    async def again(self, answer_id: int) -> Turn:
        """The row a new answer to ``answer_id``'s question is written in (see
        Orchestrator.retry): a version beside an answer with text, the same row for
        one that failed before any."""
        answer = await self.conversations.get_message(answer_id)
        if answer.role != "assistant":
            raise InvalidInputError(f"Message {answer_id} is not an answer; nothing to retry.")
        conversation = await self.conversations.get(answer.conversation_id)
        question = await self._question_of(answer)
        if answer.content:
            version = await self.conversations.store.run(add_answer_version, answer.id)
            answer = version.answer
            await recall_follows(self.episodes, version.change)
            self.events.emit(await transcript_changed(self.conversations, conversation.id))
        else:
            answer = await self.conversations.update_message(
                answer.id, content="", status=MessageStatus.STREAMING, error=None
            )
            self.events.emit(ev.MessageUpdated(message_delta(answer, "")))
        return Turn(conversation, question, answer)

    async def _question_of(self, answer: Message) -> Message:
        if answer.parent_id is not None:
            parent = await self.conversations.get_message(answer.parent_id)
            if parent.role == "user":
                return parent
        history = await self.conversations.messages(answer.conversation_id)
        earlier = [m for m in history if m.id < answer.id and m.role == "user"]
        if not earlier:
            raise InvalidInputError(f"Answer {answer.id} has no question to retry.")
        return earlier[-1]

    def answering(self, turn: Turn) -> None:
        """The user waits for ``turn``'s answer from now: background work on a
        one-request-at-a-time model server steps aside (see JobRunner)."""
        self.events.emit(ev.TurnStarted(turn.answer.id))

    def answered(self, turn: Turn) -> None:
        """``turn``'s answer ended, whatever ended it."""
        self.events.emit(ev.TurnEnded(turn.answer.id))

    def _announce(self, jobs: Sequence) -> None:
        if self.announce_jobs:
            for job in jobs:
                self.events.emit(ev.JobStatusChanged(job))

    async def recall_later(self, message_ids: list[int]) -> None:
        """Give the turn's finished messages their vectors for episodic recall (a
        temporary chat's are skipped). A failure costs only the semantic side: the
        words are indexed already, and the next start embeds what is missing."""
        try:
            await self.episodes.add(message_ids)
        except Exception as error:
            # A lost server is the turn's news already: one line, no traceback.
            lost = is_store_lost(error)
            log.warning(
                "could not embed messages %s for recall%s",
                message_ids,
                f": {error}" if lost else "",
                exc_info=not lost,
            )


def turn_jobs(conversation: Conversation, message_id: int) -> list[JobSpec]:
    """The background work a user's message is owed: learning from it, and the chat's
    title when it is the first message."""
    return processor_jobs(conversation, message_id) + title_job(conversation, message_id)


def processor_jobs(conversation: Conversation, message_id: int) -> list[JobSpec]:
    """The background work a user's message in ``conversation`` is owed."""
    if conversation.temporary:
        return []  # a temporary chat writes no memories
    return [
        JobSpec("critical_info", {"message_id": message_id}, conversation.id),
        JobSpec("summary", {"conversation_id": conversation.id}, conversation.id),
    ]


def message_delta(message: Message, delta: str) -> MessageDelta:
    """The news of ``message`` as it stands, ``delta`` being what was added."""
    return MessageDelta(
        message.id,
        message.conversation_id,
        delta,
        message.content,
        message.status,
        message.error,
    )


def validate_user_message(text: str) -> str:
    if text is None or not text.strip():
        raise InvalidInputError("The message is empty.")
    if "\x00" in text:
        raise InvalidInputError("The message contains a NUL character; remove it and send again.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        # A lone surrogate: bytes that were not UTF-8 (a terminal in another encoding,
        # a pasted binary) can't be stored as text.
        raise InvalidInputError(
            f"The message contains a character that is not valid text (at position "
            f"{error.start + 1}, likely bytes that are not UTF-8); fix it and send again. "
            "Nothing was sent."
        ) from None
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidInputError(
            f"The message is {len(text):,} characters long; the limit is "
            f"{MAX_MESSAGE_CHARS:,}. Shorten it or split it into several messages."
        )
    return text.strip()
