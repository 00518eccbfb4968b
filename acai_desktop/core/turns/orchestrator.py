"""One conversational turn, start to finish.

The turn log commits the user's message with the background processors' jobs -> plan ->
prompt assembly (retrieve, build the prompt within the budget) -> the answer stream
(an event per chunk) -> commit the answer with its status (which lets those jobs run)
and record which memories fed it.

Whatever fails, the user's message is already on disk with the jobs that learn from it
(queued in the same transaction, waiting for the answer), and the failure is written on
the answer row (status ``error`` with the reason), so the UI can say what happened and
offer "retry", which runs the turn again for the same message. A crash or kill mid-answer
loses nothing either: at the next start the answer is marked ``stopped`` and the jobs run.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.conversations.chat_settings import ChatSettings
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.profile.server_check import is_store_lost
from acai_desktop.core.records.conversations import AnswerSource, Message, MessageStatus
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.routing.sight import ModelSight
from acai_desktop.core.turns import unsaved_answers
from acai_desktop.core.turns.answer_repeats import copied_answer, without_exchange
from acai_desktop.core.turns.answer_stream import AnswerStream
from acai_desktop.core.turns.answer_text import AnswerText, cut_note
from acai_desktop.core.turns.memory_commands import APP_MODEL
from acai_desktop.core.turns.own_answers import own_answer
from acai_desktop.core.turns.planner import plan_message
from acai_desktop.core.turns.prompt_assembly import PromptAssembly
from acai_desktop.core.turns.routed_answer import RoutedAnswers
from acai_desktop.core.turns.token_usage import TokenUsage
from acai_desktop.core.turns.turn_images import SentFiles, TurnImages, marked, with_images
from acai_desktop.core.turns.turn_log import Turn, TurnLog
from acai_desktop.core.turns.turn_result import TurnResult, evidence_source

if TYPE_CHECKING:  # numpy's, loaded with the embedder, not at start
    from acai_desktop.core.routing.turn_meaning import TurnMeaning

log = logging.getLogger(__name__)


class Orchestrator:
    def __init__(
        self,
        turns: TurnLog,
        prompts: PromptAssembly,
        answers: AnswerStream,
        *,
        max_answer_bytes: int,
        asks_again_on_copy: bool = False,
        answers_memory_commands: bool = False,
        router: TurnRouter | None = None,
        meaning: TurnMeaning | None = None,
        images: TurnImages | None = None,
        sight: ModelSight | None = None,
    ) -> None:
        self.turns = turns
        self.prompts = prompts
        self.answers = answers
        #: The answer from the model that fits the turn, when the profile routes turns
        #: (``sight``: whether the chat's model sees the images a turn carries).
        self.routed = RoutedAnswers(
            answers, router, turns.conversations.privacy_of, sight or ModelSight()
        )
        #: The files each message was sent with, its images sent to the model (None:
        #: chats have no attachments, as in evaluations).
        self.images = images
        #: The task analysis' meaning signal (routing/turn_meaning.py; None: rules alone).
        self.meaning = meaning
        #: The size limit of one answer's text (UTF-8 bytes); the rest of the stream is
        #: not read, and the answer says where it was cut.
        self.max_answer_bytes = max_answer_bytes
        #: The built-in model copies its earlier answers from the history: an answer that
        #: is one again, for another message, is asked once more (core.turns.answer_repeats).
        self.asks_again_on_copy = asks_again_on_copy
        #: The built-in model's memory commands are answered by the app, not the model
        #: (core.turns.own_answers).
        self.answers_memory_commands = answers_memory_commands

    async def send(
        self,
        conversation_id: int | None,
        text: str,
        *,
        temporary: bool = False,
        attachment_ids: Sequence[int] = (),
        settings: ChatSettings | None = None,
        project_id: int | None = None,
        local_only: bool = False,
    ) -> TurnResult:
        """Run a turn for a new user message, in a new conversation (``temporary`` or
        not, in ``project_id`` or outside any project, ``local_only`` or not) when
        ``conversation_id`` is None, with ``settings`` as its own (chosen in the new
        chat's header before it was on disk). The one place a message is validated:
        InvalidInputError before any write (no conversation is started either).

        ``attachment_ids``: the files attached in the composer for this message. The
        turn waits until they (and any other attachment of the chat still being
        indexed) are indexed, before anything is written, so the answer can quote them;
        one that failed refuses the message (AttachmentFailed). A new chat's held
        attachments become the chat's as it starts."""
        turn = await self.turns.start(
            conversation_id,
            text,
            temporary=temporary,
            attachment_ids=attachment_ids,
            settings=settings,
            project_id=project_id,
            local_only=local_only,
        )
        return await self._answer(turn, recall=[turn.question.id, turn.answer.id])

    async def edit(self, user_message_id: int, text: str) -> TurnResult:
        """The user's edit of one of their messages: the chat branches there. The new
        message takes the old one's place, with a new answer whose prompt sees only
        this branch; the old message and what followed it stay, hidden (the arrows go
        back to them). Raises InvalidInputError before any write."""
        turn = await self.turns.branch(user_message_id, text)
        return await self._answer(turn, recall=[turn.question.id, turn.answer.id])

    async def retry(self, answer_id: int) -> TurnResult:
        """Answer again the user message that ``answer_id`` answered (Regenerate, Retry).

        An answer with text is kept: the new one is another version beside it, shown in
        its place (what followed the old one stays with it, hidden). An answer that
        failed before any text is written over. The prompt is rebuilt as of the
        question: the messages after it and the memories learned or changed since are
        left out."""
        turn = await self.turns.again(answer_id)
        as_of = parse_utc(turn.question.created_at)
        return await self._answer(turn, recall=[turn.answer.id], as_of=as_of)

    async def _answer(
        self, turn: Turn, *, recall: list[int], as_of: datetime | None = None
    ) -> TurnResult:
        self.turns.answering(turn)
        try:
            result = await self._answer_turn(turn, as_of)
        finally:
            self.turns.answered(turn)
            # Whatever became of the answer, its words are recallable from now on.
            await asyncio.shield(self.turns.recall_later(recall))
        result.job_ids = list(turn.job_ids)
        return result

    async def _sent_files(self, question: Message, result: TurnResult) -> SentFiles:
        """The files ``question`` was sent with; the plan then weighs them (an image
        makes the turn one for a model that sees)."""
        if self.images is None:
            return SentFiles()
        sent = await self.images.sent_with(self.turns.conversations, question)
        if sent.documents:
            files = await self.images.analysed(sent)
            result.plan = plan_message(question.content, self.meaning, files)
        return sent

    async def _answer_turn(self, turn: Turn, as_of: datetime | None) -> TurnResult:
        conversation, user_message, answer = turn.conversation, turn.question, turn.answer
        plan = plan_message(user_message.content, self.meaning)
        result = TurnResult(conversation.id, user_message, answer, plan)
        text = AnswerText(self.max_answer_bytes)
        stats = StreamStats()
        conversations = self.turns.conversations
        try:
            sent = await self._sent_files(user_message, result)
            settings = result.settings = await self.prompts.settings_for(conversation.id)
            if self.answers_memory_commands and settings.own_model is None:
                retriever = self.prompts.retriever
                own = await own_answer(retriever, conversation, user_message, result, as_of)
                if own is not None:
                    text.add(own)
                    result.answered_by = APP_MODEL
                    status = MessageStatus.COMPLETE
                    result.answer = await self.answers.finish(answer, text, status, None, result)
                    return result
            prompt = functools.partial(
                self.prompts.build,
                conversation,
                user_message,
                plan,
                as_of=as_of,
                budget_tokens=settings.context_budget_tokens,
            )

            async def build(**options):  # the prompt, the message naming its images
                context, in_prompt = await prompt(**options)
                return marked(context, sent.images), in_prompt

            answering = await self.routed.plan(
                conversation.id,
                await build(),
                settings,
                result,
                rebuild=lambda local_only: build(withhold=local_only),
                image_ids=frozenset(image.id for image in sent.images),
            )
            context, in_prompt = answering.context, answering.in_prompt
            result.asked_as = context.messages[-1]["content"]
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
            # Only the stream's copy of the prompt carries the images themselves.
            sending = replace(answering, context=await with_images(context, sent.images))
            await self.routed.stream(answer, sending, text, settings, stats, result)
            copied = None
            if self.asks_again_on_copy and settings.own_model is None and not text.cut:
                copied = copied_answer(context.messages, text.text())
            if copied is not None:
                # The model copied an earlier answer to another message (issue 40):
                # asked again without it, what it writes now is this message's answer.
                log.info("answer %s copied an earlier answer; asking again", answer.id)
                context = replace(context, messages=without_exchange(context.messages, copied))
                text = AnswerText(self.max_answer_bytes)
                self.answers.restart(answer)
                await self.answers.stream(answer, context, text, settings, stats)
            result.usage = TokenUsage(
                stats.prompt_tokens, stats.completion_tokens, context.memory_tokens
            )
            # An answer cut at the size limit did not end: stopped, with the note.
            status, note = MessageStatus.COMPLETE, None
            if text.cut:
                status, note = MessageStatus.STOPPED, cut_note(self.max_answer_bytes)
            result.answer = await self.answers.finish(answer, text, status, note, result)
            self.prompts.warm_next_start(conversation, context, result.answer, result.settings)
        except asyncio.CancelledError:
            # Stop button: keep what was written, say it was stopped, then let the
            # cancellation carry on so the caller's task really ends.
            result.answer = await asyncio.shield(
                self.answers.finish(answer, text, MessageStatus.STOPPED, None, result)
            )
            raise
        except AcaiError as error:  # model errors included: say what happened, keep all
            if is_store_lost(error):
                # Nothing can be saved now: the text waits for the store to be reopened
                # (the window reconnects), which saves it with the reason.
                log.warning("answer %s could not be saved: %s", answer.id, error)
                unsaved_answers.hold(conversations.store.path, answer.id, text.text())
                raise
            log.warning("turn failed in conversation %s: %s", conversation.id, error)
            status, reason = MessageStatus.ERROR, str(error)
            result.answer = await self.answers.finish(answer, text, status, reason, result)
            return result
        except Exception as error:
            log.exception("unexpected failure in a turn")
            result.answer = await self.answers.finish(
                answer,
                text,
                MessageStatus.ERROR,
                f"Something went wrong ({type(error).__name__}: {error}). "
                "Your message is saved; try again.",
                result,
            )
            return result
        return result
