"""One conversational turn, start to finish.

commit the user's message with the background processors' jobs -> plan -> retrieve ->
build the prompt within the budget -> stream the answer (an event per chunk) -> commit
the answer with its status (which lets those jobs run) -> record which memories fed it.

Whatever fails, the user's message is already on disk with the jobs that learn from it
(queued in the same transaction, waiting for the answer), and the failure is written on
the answer row (status ``error`` with the reason), so the UI can say what happened and
offer "retry", which runs the turn again for the same message. A crash or kill mid-answer
loses nothing either: at the next start the answer is marked ``stopped`` and the jobs run.

The streamed text lives in memory (:class:`AnswerText`, capped in size) until the answer
is saved; the saves along the way are queued beside the stream, never in its path, and
one the database refused (busy with another program's import) is just skipped. The
final save waits for the database as long as it takes, so a turn never ends with an
empty ``streaming`` row while its text was shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from acai_desktop.core import events as ev
from acai_desktop.core import unsaved_answers
from acai_desktop.core.answer_filter import DelimiterFilter, PromptFrameFilter, prompt_frames
from acai_desktop.core.answer_repeats import copied_answer, without_exchange
from acai_desktop.core.answer_text import DEFAULT_MAX_ANSWER_MB, AnswerText, cut_note
from acai_desktop.core.chat_settings import (
    ChatSettings,
    EffectiveSettings,
    ProfileChatDefaults,
    clean_chat_settings,
    effective_settings,
)
from acai_desktop.core.chat_settings_service import ChatSettingsService
from acai_desktop.core.citations import citations_of
from acai_desktop.core.clock import parse_utc
from acai_desktop.core.custom_instructions import UsedInstructions
from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.documents.model import EvidenceSource, RetrievedPassage
from acai_desktop.core.documents.prompt_block import EVIDENCE_K, EVIDENCE_MIN_SCORE
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import AcaiError, InvalidInputError, StoreError
from acai_desktop.core.events import EventBus, MessageDelta
from acai_desktop.core.instructions_service import InstructionsService
from acai_desktop.core.llm.chat_model import ChatModel
from acai_desktop.core.llm.prompt_warmer import PromptWarmer, same_start
from acai_desktop.core.llm.replies import StreamStats
from acai_desktop.core.memory.context_builder import (
    MEMORY_SHARE,
    RECALL_SHARE,
    BuiltContext,
    UsedEvidence,
    bearing_reason,
    build_context,
    history_room,
    recall_reach,
    stable_start,
)
from acai_desktop.core.memory.explain import matching_sentences
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMemory
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.memory_commands import (
    APP_MODEL,
    MOST_LISTED,
    known_answer,
    requests_answer,
)
from acai_desktop.core.planner import Plan, plan_message
from acai_desktop.core.processors.plain_statements import memory_requests
from acai_desktop.core.processors.titles import title_job
from acai_desktop.core.records import (
    AnswerSource,
    Conversation,
    MemoryItem,
    MemoryKind,
    MemoryStatus,
    Message,
    MessageStatus,
    ProjectScope,
    RecalledMessage,
)
from acai_desktop.core.resources import resource_text
from acai_desktop.core.rules.bearings import ABOUT_YOU, asks_what_is_known
from acai_desktop.core.server_check import is_store_lost
from acai_desktop.core.store.conversations import ConversationRepository
from acai_desktop.core.store.database import DatabaseBusyError
from acai_desktop.core.store.jobs import JobSpec
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.store.message_tree import add_answer_version, add_branch
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.token_usage import TokenUsage
from acai_desktop.core.transcript import recall_follows, transcript_changed

log = logging.getLogger(__name__)

#: Longest user message accepted, in characters. Longer text is refused before
#: anything is written, and the UI keeps it in the composer.
MAX_MESSAGE_CHARS = 100_000
#: How often a streaming answer's partial text is written to disk.
PARTIAL_SAVE_SECONDS = 1.5
#: Between two tries of an answer's final save while the database stays busy.
FINAL_SAVE_PAUSE_SECONDS = 1.0


@dataclass
class TurnResult:
    conversation_id: int
    user_message: Message
    answer: Message
    plan: Plan
    memories_used: list[AnswerSource] = field(default_factory=list)
    used_contents: dict[int, str] = field(default_factory=dict)  # by memory id
    used_kinds: dict[int, str] = field(default_factory=dict)  # by memory id: fact, note...
    # The messages of past conversations among memories_used, by message id.
    recalled: dict[int, RecalledMessage] = field(default_factory=dict)
    prompt_tokens: int = 0
    job_ids: list[int] = field(default_factory=list)
    # The document passages that fed the answer ("Sources: file.pdf, p. 12").
    evidence_used: list[EvidenceSource] = field(default_factory=list)
    # The user's custom instructions the prompt carried.
    instructions: UsedInstructions | None = None
    # The model, temperature and context budget the turn ran with.
    settings: EffectiveSettings | None = None
    # What the answer cost, as the server reported it (None: the stream never ended).
    usage: TokenUsage | None = None
    # Who wrote the answer when not the chat's model: the app, from memory
    # (core.memory_commands).
    answered_by: str | None = None

    @property
    def status(self) -> MessageStatus:
        return self.answer.status


class Orchestrator:
    def __init__(
        self,
        *,
        conversations: ConversationRepository,
        provenance: ProvenanceRepository,
        memories: MemoryService,
        retriever: HybridRetriever,
        client: ChatModel,
        events: EventBus,
        announce_jobs: bool = False,
        context_budget_tokens: int = 3000,
        documents: DocumentService | None = None,
        attachments: ChatAttachments | None = None,
        max_answer_bytes: int = int(DEFAULT_MAX_ANSWER_MB * 1_000_000),
        answer_max_tokens: int | None = None,
        instructions: InstructionsService | None = None,
        chat_settings: ChatSettingsService | None = None,
        recall_share: float = RECALL_SHARE,
        memory_share: float = MEMORY_SHARE,
    ) -> None:
        self.conversations = conversations
        #: Each chat's own model settings (None: every chat uses the profile's, as in
        #: evaluations).
        self.chat_settings = chat_settings
        #: The user's custom instructions (None: none are read, as in evaluations).
        self.instructions = instructions
        self.provenance = provenance
        self.memories = memories
        self.retriever = retriever
        #: The user's documents, searched for evidence in every turn (None: no documents).
        self.documents = documents
        #: Files attached in the composer: a message waits until they are indexed.
        self.attachments = attachments
        self.client = client
        self.events = events
        #: Whether a job runner works this profile's queue, so queued jobs are news
        #: (without one, as when no model could be started, they wait for the next start).
        self.announce_jobs = announce_jobs
        self.context_budget_tokens = context_budget_tokens
        #: The shares of the budget recalled messages and memories may take
        #: (context_builder: smaller for a model that reads prompts slowly).
        self.recall_share, self.memory_share = recall_share, memory_share
        #: The size limit of one answer's text (UTF-8 bytes); the rest of the stream is
        #: not read, and the answer says where it was cut.
        self.max_answer_bytes = max_answer_bytes
        #: The longest answer asked of the model, in tokens (None: the server's limit).
        self.answer_max_tokens = answer_max_tokens
        self.system_prompt = resource_text("prompts", "system.txt").strip()
        self.prompt_frames = prompt_frames(self.system_prompt)
        #: Has a local server read the next prompt's known start while the user reads
        #: and types (None: the server keeps no prompt, or bills for the request).
        self.warmer: PromptWarmer | None = None
        #: The built-in model copies its earlier answers from the history: an answer that
        #: is one again, for another message, is asked once more (core.answer_repeats).
        self.asks_again_on_copy = False
        #: The built-in model's memory commands ("What do you know about me?", "Remember
        #: that …", "Forget that …") are answered by the app, not the model
        #: (core.memory_commands).
        self.answers_memory_commands = False

    def history_room(self) -> int:
        """The tokens a prompt's history may take (see context_builder.history_room)."""
        return history_room(self.system_prompt, self.context_budget_tokens)

    async def own_history_room(self, conversation_id: int) -> int | None:
        """The history room of a chat whose context budget is its own (None: it uses the
        profile's, see :meth:`history_room`); the summary processor folds by it."""
        settings = await self.settings_for(conversation_id)
        # An automatic budget follows the chat's model: the profile's rule, its own number.
        if settings.context_budget_tokens == self.context_budget_tokens:
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
            budget_tokens=self.context_budget_tokens,
            instructions=instructions,
        )

    def _warm_next_start(
        self, conversation: Conversation, context: BuiltContext, result: TurnResult
    ) -> None:
        """After an answer, when the next turn's prompt won't start with what the server
        has just read (the history overflowed its room: the next turn cuts its oldest
        messages), have the server read that start while the user reads and types."""
        if self.warmer is None or result.settings is None:
            return
        if result.answer.status not in (MessageStatus.COMPLETE, MessageStatus.STOPPED):
            return
        read = [*context.messages, {"role": "assistant", "content": result.answer.content}]
        settings = result.settings

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

    async def settings_for(self, conversation_id: int | None) -> EffectiveSettings:
        """The model, temperature and context budget a chat's turns run with."""
        if self.chat_settings is not None:
            return await self.chat_settings.in_effect(conversation_id)
        profile = ProfileChatDefaults(self.client.model_for("chat"), self.context_budget_tokens)
        return effective_settings(profile)

    async def send(
        self,
        conversation_id: int | None,
        text: str,
        *,
        temporary: bool = False,
        attachment_ids: Sequence[int] = (),
        settings: ChatSettings | None = None,
        project_id: int | None = None,
    ) -> TurnResult:
        """Run a turn for a new user message, in a new conversation (``temporary`` or
        not, in ``project_id`` or outside any project) when ``conversation_id`` is None,
        with ``settings`` as its own (chosen in the new chat's header before it was on
        disk). The one place a message is validated: InvalidInputError before any write
        (no conversation is started either).

        ``attachment_ids``: the files attached in the composer for this message. The
        turn waits until they (and any other attachment of the chat still being
        indexed) are indexed, before anything is written, so the answer can quote them;
        one that failed refuses the message (AttachmentFailed). A new chat's held
        attachments become the chat's as it starts."""
        text = validate_user_message(text)
        if settings is not None:
            settings = clean_chat_settings(
                settings.model, settings.temperature, settings.context_budget_tokens
            )
        if self.attachments is not None:
            await self.attachments.wait_ready(
                await self.attachments.to_wait_for(conversation_id, attachment_ids)
            )
        if conversation_id is None:
            conversation = await self.conversations.create(
                temporary=temporary, project_id=project_id
            )
            if attachment_ids and self.attachments is not None:
                await self.attachments.bind(attachment_ids, conversation.id)
            if settings is not None and not settings.empty and self.chat_settings is not None:
                await self.chat_settings.set_for_chat(
                    conversation.id,
                    model=settings.model,
                    temperature=settings.temperature,
                    context_budget_tokens=settings.context_budget_tokens,
                )
            self.events.emit(ev.ConversationCreated(conversation))
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
        user_message, answer = turn.user_message, turn.answer
        # Its title (from a first message) and its place in the list (now the latest).
        self.events.emit(ev.ConversationChanged(turn.conversation))
        self.events.emit(ev.MessageAdded(user_message))
        self.events.emit(ev.MessageAdded(answer))
        if self.announce_jobs:
            for job in turn.jobs:
                self.events.emit(ev.JobStatusChanged(job))
        try:
            result = await self._answer(conversation, user_message, answer)
        finally:
            # Whatever became of the answer, its words are recallable from now on.
            await asyncio.shield(self._recall_later([user_message.id, answer.id]))
        result.job_ids = list(turn.job_ids)
        return result

    async def edit(self, user_message_id: int, text: str) -> TurnResult:
        """The user's edit of one of their messages: the chat branches there. The new
        message takes the old one's place, with a new answer whose prompt sees only
        this branch; the old message and what followed it stay, hidden (the arrows go
        back to them). Raises InvalidInputError before any write."""
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
        await recall_follows(self.memories.episodes, branch.change)
        self.events.emit(await transcript_changed(self.conversations, conversation.id))
        self.events.emit(ev.MessageAdded(turn.user_message))  # the composer hears it was sent
        self.events.emit(ev.ConversationChanged(turn.conversation))  # moved up the list
        if self.announce_jobs:
            for job in turn.jobs:
                self.events.emit(ev.JobStatusChanged(job))
        try:
            result = await self._answer(conversation, turn.user_message, turn.answer)
        finally:
            await asyncio.shield(self._recall_later([turn.user_message.id, turn.answer.id]))
        result.job_ids = list(turn.job_ids)
        return result

    async def retry(self, answer_id: int) -> TurnResult:
        """Answer again the user message that ``answer_id`` answered (Regenerate, Retry).

        An answer with text is kept: the new one is another version beside it, shown in
        its place (what followed the old one stays with it, hidden). An answer that
        failed before any text is written over. The prompt is rebuilt as of the
        question: the messages after it and the memories learned or changed since are
        left out."""
        answer = await self.conversations.get_message(answer_id)
        if answer.role != "assistant":
            raise InvalidInputError(f"Message {answer_id} is not an answer; nothing to retry.")
        conversation = await self.conversations.get(answer.conversation_id)
        question = await self._question_of(answer)
        if answer.content:
            version = await self.conversations.store.run(add_answer_version, answer.id)
            answer = version.answer
            await recall_follows(self.memories.episodes, version.change)
            self.events.emit(await transcript_changed(self.conversations, conversation.id))
        else:
            answer = await self.conversations.update_message(
                answer.id, content="", status=MessageStatus.STREAMING, error=None
            )
            self.events.emit(ev.MessageUpdated(_delta(answer, "")))
        try:
            return await self._answer(
                conversation, question, answer, as_of=parse_utc(question.created_at)
            )
        finally:
            await asyncio.shield(self._recall_later([answer.id]))

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

    async def _answer(
        self,
        conversation: Conversation,
        user_message: Message,
        answer: Message,
        *,
        as_of: datetime | None = None,
    ) -> TurnResult:
        # The user waits from here on: background work on a one-request-at-a-time model
        # server steps aside until the turn ends (see JobRunner), whatever ends it.
        self.events.emit(ev.TurnStarted(answer.id))
        try:
            return await self._answer_turn(conversation, user_message, answer, as_of)
        finally:
            self.events.emit(ev.TurnEnded(answer.id))

    async def _answer_turn(
        self,
        conversation: Conversation,
        user_message: Message,
        answer: Message,
        as_of: datetime | None = None,
    ) -> TurnResult:
        plan = plan_message(user_message.content)
        result = TurnResult(conversation.id, user_message, answer, plan)
        text = AnswerText(self.max_answer_bytes)
        stats = StreamStats()
        try:
            settings = result.settings = await self.settings_for(conversation.id)
            if self.answers_memory_commands and settings.own_model is None:
                own = await self._own_answer(conversation, user_message, result, as_of)
                if own is not None:
                    await self.conversations.update_message(user_message.id, plan=plan.to_dict())
                    text.add(own)
                    result.answered_by = APP_MODEL
                    status = MessageStatus.COMPLETE
                    result.answer = await self._finish(answer, text, status, None, result)
                    return result
            context, in_prompt = await self.build_prompt(
                conversation,
                user_message,
                plan,
                as_of=as_of,
                budget_tokens=settings.context_budget_tokens,
            )
            # The message as this prompt sends it: the next turns' history repeats it
            # word for word (context_builder.history_text). A regenerated answer's
            # prompt replaces it: the newest answer, shown, follows that one.
            await self.conversations.update_message(
                user_message.id, plan=plan.to_dict(), sent_content=context.messages[-1]["content"]
            )
            result.prompt_tokens = context.tokens
            result.instructions = context.instructions
            result.memories_used = [
                AnswerSource(
                    answer.id,
                    used.memory_id,
                    used.rank,
                    used.score,
                    list(used.reasons),
                    recalled_message_id=used.message_id,
                )
                for used in context.used
            ]
            used_memories = [
                in_prompt[u.memory_id] for u in context.used if u.memory_id is not None
            ]
            result.used_contents = {m.id: m.content for m in used_memories}
            result.used_kinds = {m.id: m.kind.value for m in used_memories}
            result.recalled = dict(context.recalled)
            result.evidence_used = [
                evidence_source(answer.id, e, user_message.content) for e in context.evidence
            ]
            await self._stream(answer, context, text, settings, stats)
            copied = None
            if self.asks_again_on_copy and settings.own_model is None and not text.cut:
                copied = copied_answer(context.messages, text.text())
            if copied is not None:
                # The model copied an earlier answer to another message (issue 40):
                # asked again without it, what it writes now is this message's answer.
                log.info("answer %s copied an earlier answer; asking again", answer.id)
                context = replace(context, messages=without_exchange(context.messages, copied))
                text = AnswerText(self.max_answer_bytes)
                self.events.emit(ev.MessageUpdated(_delta(answer, "")))
                await self._stream(answer, context, text, settings, stats)
            result.usage = TokenUsage(
                stats.prompt_tokens, stats.completion_tokens, context.memory_tokens
            )
            # An answer cut at the size limit did not end: stopped, with the note.
            status, note = MessageStatus.COMPLETE, None
            if text.cut:
                status, note = MessageStatus.STOPPED, cut_note(self.max_answer_bytes)
            result.answer = await self._finish(answer, text, status, note, result)
            self._warm_next_start(conversation, context, result)
        except asyncio.CancelledError:
            # Stop button: keep what was written, say it was stopped, then let the
            # cancellation carry on so the caller's task really ends.
            result.answer = await asyncio.shield(
                self._finish(answer, text, MessageStatus.STOPPED, None, result)
            )
            raise
        except AcaiError as error:  # model errors included: say what happened, keep all
            if is_store_lost(error):
                # Nothing can be saved now: the text waits for the store to be reopened
                # (the window reconnects), which saves it with the reason.
                log.warning("answer %s could not be saved: %s", answer.id, error)
                unsaved_answers.hold(self.conversations.store.path, answer.id, text.text())
                raise
            log.warning("turn failed in conversation %s: %s", conversation.id, error)
            status, reason = MessageStatus.ERROR, str(error)
            result.answer = await self._finish(answer, text, status, reason, result)
            return result
        except Exception as error:
            log.exception("unexpected failure in a turn")
            result.answer = await self._finish(
                answer,
                text,
                MessageStatus.ERROR,
                f"Something went wrong ({type(error).__name__}: {error}). "
                "Your message is saved; try again.",
                result,
            )
            return result
        return result

    async def _own_answer(
        self,
        conversation: Conversation,
        user_message: Message,
        result: TurnResult,
        as_of: datetime | None,
    ) -> str | None:
        """The app's answer to a memory command (None: the message is none; the model
        answers). A question about the user lists what is known of them, as of
        ``as_of``, and records what it listed as the answer's sources."""
        content = user_message.content
        if asks_what_is_known(content):
            known_then = functools.partial(_known_then, as_of)
            scope = ProjectScope(conversation.project_id)
            known = [m for m in await self.retriever.known_facts(scope) if known_then(m)]
            listed = known[:MOST_LISTED]
            reason = bearing_reason(ABOUT_YOU.name)
            result.memories_used = [
                AnswerSource(result.answer.id, memory.id, rank, 1.0, [reason])
                for rank, memory in enumerate(listed, start=1)
            ]
            result.used_contents = {m.id: m.content for m in listed}
            result.used_kinds = {m.id: m.kind.value for m in listed}
            return known_answer(listed, len(known))
        if requests := memory_requests(content):
            return requests_answer(requests, temporary=conversation.temporary)
        return None

    async def build_prompt(
        self,
        conversation: Conversation,
        user_message: Message,
        plan: Plan,
        *,
        as_of: datetime | None = None,
        budget_tokens: int | None = None,
    ) -> tuple[BuiltContext, dict[int, MemoryItem]]:
        """The prompt for answering ``user_message``, and each memory that was offered
        for it, by id (the recalled messages are in the context's ``recalled``), within
        ``budget_tokens`` (None: the profile's budget).

        The conversation is its shown path up to ``user_message`` (another branch's
        messages and summaries stay out). ``as_of`` (a regenerated answer: the
        question's time): memories created or changed after it are left out, pinned
        ones and summaries too; the messages a later summary folded come back whole."""

        known_then = functools.partial(_known_then, as_of)
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
        pinned = [m for m in await self.retriever.pinned(scope) if known_then(m)]
        history = await self.conversations.messages(conversation.id)
        earlier = [m for m in history if m.id < user_message.id]
        later_summaries = {s.id for s in all_summaries if not known_then(s)}
        # The summaries that stand for this path's earlier messages, as they were then.
        folded_here = {m.folded_into for m in earlier if m.folded_into is not None}
        summaries = [
            s for s in all_summaries if s.id in folded_here and s.id not in later_summaries
        ]
        unfolded = [m for m in history if m.folded_into is None or m.folded_into in later_summaries]
        recent = [m for m in unfolded if m.id < user_message.id]
        # This conversation's summaries go in anyway, and so do its recent messages (the
        # short-term context): don't spend retrieval slots on them.
        bearing = await self.retriever.bearing_facts(
            user_message.content, scope, exclude_ids=[p.id for p in pinned], known_then=known_then
        )
        budget = budget_tokens or self.context_budget_tokens
        retrieved = await self.retriever.search(
            user_message.content,
            k=plan.retrieval_k,
            reach=recall_reach(budget, self.recall_share),
            # "Last week" counts from when the message was written (a regenerated answer's
            # question: then, not now).
            now=parse_utc(user_message.created_at),
            exclude_ids=[s.id for s in summaries]
            + [p.id for p in pinned]
            + [memory.id for memory, _ in bearing],
            conversation_id=conversation.id,
            exclude_message_ids=[m.id for m in unfolded],
            as_of=as_of,
            scope=scope,
        )
        evidence = await self.evidence(conversation, user_message)
        instructions = (
            await self.instructions.in_effect(conversation.id) if self.instructions else None
        )
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
        )
        offered = {m.id: m for m in [*pinned, *(memory for memory, _ in bearing), *summaries]}
        offered.update({h.memory.id: h.memory for h in retrieved if isinstance(h, RetrievedMemory)})
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

    async def _stream(
        self,
        answer: Message,
        context: BuiltContext,
        text: AnswerText,
        settings: EffectiveSettings,
        stats: StreamStats,
    ) -> None:
        """Read the answer's stream into ``text`` until it ends or is cut at the limit,
        with the chat's model and temperature; the server's figures land in ``stats``."""
        saves = PartialSaves(self.conversations, answer.id)
        # A model that echoes its prompt must not show the user the prompt's block tags.
        delimiters = DelimiterFilter()
        # Nor the lines of its frame ("The user's message:", a section header, a
        # sentence of the system prompt).
        frames = PromptFrameFilter(self.prompt_frames)
        stream = self.client.stream_chat(
            context.messages,
            role="chat",
            max_tokens=self.answer_max_tokens,
            temperature=settings.temperature,
            stats=stats,
            model=settings.own_model,
        )
        async with contextlib.aclosing(stream):  # a cut answer closes the stream at once
            async for chunk in stream:
                delta = frames.feed(delimiters.feed(chunk or ""))
                if not delta:
                    continue
                text.add(delta)
                if text.due_to_show():
                    self._show(answer, text)
                saves.maybe_save(text)
                if text.cut:
                    break
        if not text.cut and (rest := frames.feed(delimiters.flush()) + frames.flush()):
            text.add(rest)  # held back as a possible tag or frame, and it was none
        await saves.settled()

    def _show(self, answer: Message, text: AnswerText) -> None:
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

    async def _finish(
        self,
        answer: Message,
        text: AnswerText,
        status: MessageStatus,
        error: str | None,
        result: TurnResult,
    ) -> Message:
        """Save the answer as it ended and what fed it (``result``'s memories and
        passages), then announce it."""
        self._show(answer, text)
        sources, evidence = result.memories_used, result.evidence_used
        content = text.text()
        finished = await self._save_answer(
            answer.id,
            content=content,
            status=status,
            error=error,
            tokens=estimate_tokens(content),
            model=result.answered_by
            or (result.settings.model if result.settings else self.client.model_for("chat")),
            instructions=result.instructions,
            usage=result.usage,
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
        self.events.emit(ev.MessageUpdated(_delta(finished, "")))
        citations = citations_of(evidence, sources, result.recalled)
        self.events.emit(
            ev.AnswerFinished(
                finished, tuple(sources), tuple(evidence), finished.instructions, citations
            )
        )
        return finished

    async def _save_answer(self, answer_id: int, **changes) -> Message:
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

    async def _recall_later(self, message_ids: list[int]) -> None:
        """Give the turn's finished messages their vectors for episodic recall (a
        temporary chat's are skipped). A failure costs only the semantic side: the
        words are indexed already, and the next start embeds what is missing."""
        try:
            await self.memories.episodes.add(message_ids)
        except Exception as error:
            # A lost server is the turn's news already: one line, no traceback.
            lost = is_store_lost(error)
            log.warning(
                "could not embed messages %s for recall%s",
                message_ids,
                f": {error}" if lost else "",
                exc_info=not lost,
            )


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


#: How much of a passage an answer's provenance keeps (the whole passage stays in
#: the document; this is what a list of sources shows).
SNIPPET_CHARS = 240


def evidence_source(answer_id: int, used: UsedEvidence, question: str = "") -> EvidenceSource:
    """What an answer's provenance keeps of a passage: where it is, and as its snippet
    the sentences that matched ``question`` (the opening when none shares a word)."""
    passage = used.hit.passage
    snippet = matching_sentences(passage.content, question, SNIPPET_CHARS)
    return EvidenceSource(
        message_id=answer_id,
        rank=used.rank,
        chunk_id=passage.chunk_id,
        document_id=passage.document_id,
        document_name=passage.document_name,
        page=passage.page,
        score=used.hit.score,
        reasons=list(used.hit.reasons),
        snippet=snippet,
    )


def turn_jobs(conversation: Conversation, message_id: int) -> list[JobSpec]:
    """The background work a user's message is owed: learning from it, and the chat's
    title when it is the first message."""
    return processor_jobs(conversation, message_id) + title_job(conversation, message_id)


def _known_then(as_of: datetime | None, memory: MemoryItem) -> bool:
    """Whether ``memory`` was as it is now at ``as_of`` (None: now)."""
    if as_of is None:
        return True
    return parse_utc(memory.created_at) <= as_of and parse_utc(memory.updated_at) <= as_of


def processor_jobs(conversation: Conversation, message_id: int) -> list[JobSpec]:
    """The background work a user's message in ``conversation`` is owed."""
    if conversation.temporary:
        return []  # a temporary chat writes no memories
    return [
        JobSpec("critical_info", {"message_id": message_id}, conversation.id),
        JobSpec("summary", {"conversation_id": conversation.id}, conversation.id),
    ]


def _delta(message: Message, delta: str) -> MessageDelta:
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
