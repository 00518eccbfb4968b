"""FactLearner: durable facts about the user, out of their own messages.

Three steps per user message, each cheaper than the next one is expensive:
1. a local gate drops acknowledgements ("okay", "thanks") with no model call at all;
2. a *triage* call on the cheap model answers yes/no: does this carry a new durable fact?
3. only on yes, an *extraction* call returns ``{"facts": [{fact, category, confidence}]}``.
With the bundled 135M model (``facts_by_rules``), which can't pick facts, steps 2 and 3
are rules instead (``plain_statements``): the user's own lasting statements, no call.
Each fact is then reconciled with the most similar active facts: a duplicate reinforces
the old memory, a refinement or contradiction supersedes it (both rows kept), and a fact
that contradicts a pinned or user-edited memory is stored as a ``conflict`` for the user.
With ``facts_by_rules`` no model weighs two facts: only a new home, name or age replaces
the one before (``memory.replacements``); other facts are kept beside each other.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel

from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.learning.fact_outcomes import CallCounts, CriticalInfoOutcome
from acai_desktop.core.learning.fact_replies import (
    ExtractedFact,
    ExtractionReply,
    RelationReply,
    TriageReply,
)
from acai_desktop.core.learning.learning_models import LearningModel, LearningModels
from acai_desktop.core.learning.plain_statements import (
    STATEMENT_CONFIDENCE,
    forget_requests,
    lasting_statements,
    requested_facts,
)
from acai_desktop.core.memory.forget_requests import forget_on_request
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.memory.intake import extraction_prompt, normalised, suggestion_draft
from acai_desktop.core.memory.query import topic_stems
from acai_desktop.core.memory.replacements import replace_by_rule
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryKind, Origin
from acai_desktop.core.resources import resource_text
from acai_desktop.core.rules.grounding import GROUNDED
from acai_desktop.core.rules.user_subject import name_the_subject
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.turns.planner import is_acknowledgement

log = logging.getLogger(__name__)

ACTOR = Actor.CRITICAL_INFO_PROCESSOR
#: Messages longer than this are cut before triage/extraction (the start carries the news).
MAX_MESSAGE_CHARS_FOR_EXTRACTION = 4000


def _fact_write_key(write_key: str | None, content: str) -> str | None:
    """The key of one fact's write in a keyed run (a job): run again, it writes nothing."""
    return f"critical_info:{write_key}:{normalised(content)}" if write_key else None


class FactLearner:
    def __init__(
        self,
        *,
        client,
        memories: Memory,
        conversations: ConversationRepository,
        #: Given ("Ask before remembering" is on), new facts wait there for the user.
        suggestions: MemorySuggestions | None = None,
        #: Facts from the user's plain statements, with no model call (core.learning.
        #: plain_statements): for the bundled 135M model, which can't pick facts.
        facts_by_rules: bool = False,
        #: Which model each job asks (None: ``client``'s role models, for every chat).
        models: LearningModels | None = None,
    ) -> None:
        self.client = client
        self.models = models or LearningModels(client)
        self.facts_by_rules = facts_by_rules
        self.memories = memories
        self.conversations = conversations
        self.suggestions = suggestions
        self.counts = CallCounts()
        self._triage_prompt = resource_text("prompts", "triage.txt").strip()
        self._extraction_prompt = extraction_prompt()
        # The memory's intake rule, step by step (core.memory.intake). Above its related
        # similarity a reconcile call decides whether a fact replaces one on its
        # subject; below it the fact is simply new.
        self.intake = memories.fact_intake
        self._reconcile_prompt = resource_text("prompts", "reconcile.txt").strip()

    async def handle(self, job: Job) -> None:
        # Each write is keyed to this job: run again after a crash or a failure, the job
        # skips the facts it already stored or reinforced instead of writing them twice.
        await self.process_message(int(job.payload["message_id"]), write_key=f"job{job.id}")

    async def process_message(
        self, message_id: int, *, write_key: str | None = None
    ) -> CriticalInfoOutcome:
        """Learn from one user message. ``write_key`` names this run (a job), so a
        second run of it writes nothing the first one wrote."""
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

        learning = LearningModel(self.client)
        if not self.facts_by_rules:
            try:
                found = await self.models.for_chat(conversation.id)
            except NotFoundError:  # deleted meanwhile, as above
                outcome.reason = "the message was deleted"
                return outcome
            if found is None:
                outcome.reason = "the chat is local only and no model on this computer can learn"
                log.info("message %d: %s", message_id, outcome.reason)
                return outcome
            learning = found
        text = message.content[:MAX_MESSAGE_CHARS_FOR_EXTRACTION]
        # "Forget that I have a dog": done first, and nothing this message says is
        # learned back in its place.
        asked_to_forget = forget_requests(text)
        forget = [topic_stems(what) for what in asked_to_forget]
        for what, wanted in zip(asked_to_forget, forget, strict=True):
            outcome.forgotten += await forget_on_request(
                self.memories, what, wanted, conversation.project_id
            )
        # "Remember that my passport expires in May": the user has said yes already, so
        # what they ask to keep is stored (not suggested), whatever it sounds like.
        requested = [
            ExtractedFact(fact=fact, category=category, confidence=STATEMENT_CONFIDENCE)
            for fact, category in requested_facts(text)
        ]
        explicit: set[str] = set()  # the normalised facts the user asked to keep
        if self.facts_by_rules:
            facts = requested + [
                ExtractedFact(fact=fact, category=category, confidence=STATEMENT_CONFIDENCE)
                for fact, category in lasting_statements(text)
            ]
            explicit = {normalised(name_the_subject(fact.fact)) for fact in requested}
            if not facts:
                outcome.reason = "no lasting statement of the user's own"
                return outcome
            outcome.durable = True
        else:
            facts = await self._facts_by_model(message_id, text, outcome, learning)
            if requested:
                # The model's wording when it found facts; the request's own when it
                # found none (or said there was nothing lasting).
                facts = facts or requested
                explicit = {normalised(name_the_subject(fact.fact)) for fact in facts}
                outcome.durable, outcome.reason = True, None
            if facts is None:
                return outcome
        seen: set[str] = set()
        for fact in facts:
            content = name_the_subject(fact.fact)
            if normalised(content) in seen or len(content) < 3:
                continue
            if any(wanted and wanted <= topic_stems(content) for wanted in forget):
                continue  # what the message asks to forget, said again in the request
            # The request's own words, turned by rules, need no check for what a model
            # invents; and what the user asked to keep may be about a thing ("the garage
            # code is 4512"), which the check refuses from a model.
            by_request = any(fact is asked_for for asked_for in requested)
            in_project = conversation.project_id is not None
            verdict = (
                GROUNDED
                if by_request
                else await self.intake.grounded(content, text, in_project=in_project)
            )
            if not verdict.grounded:
                # A small model invents facts; stored, they would come back in every
                # later prompt as truth. Counted by reason, so the rate is visible.
                self.counts.rejected[verdict.rejection] += 1
                outcome.rejected.append((content, verdict))
                log.info(
                    "message %d: fact refused (%s: %s): %.80r",
                    message_id, verdict.rejection, verdict.detail or "-", content,
                )  # fmt: skip
                continue
            seen.add(normalised(content))
            asked = normalised(content) in explicit
            if self.suggestions is not None and not asked:
                known = await self.intake.same_fact(content, conversation.project_id)
                if known is not None:
                    # Said again: nothing new to ask about. It counts as the
                    # reinforcement it would be without "Ask before remembering".
                    key = _fact_write_key(write_key, content)
                    await self._reinforce(known.id, message, fact, key, outcome)
                    continue
                draft = suggestion_draft(
                    content, message.id, message.conversation_id, fact.category, fact.confidence
                )
                suggestion = await self.suggestions.propose(draft)
                if suggestion is not None:  # None: proposed (maybe dismissed) before
                    outcome.suggested.append(suggestion)
                continue
            try:
                await self._reconcile(
                    message,
                    content,
                    fact,
                    outcome,
                    write_key=write_key,
                    project_id=conversation.project_id,
                    explicit=asked,
                    learning=learning,
                )
            except InvalidInputError as error:
                # This fact's text can't be stored (a control character, ...): skip it,
                # keep the others. Retrying would not change the text.
                log.info("message %d: a fact was refused: %s", message_id, error)
        return outcome

    async def _facts_by_model(
        self, message_id: int, text: str, outcome: CriticalInfoOutcome, learning: LearningModel
    ) -> list[ExtractedFact] | None:
        """Triage, then (on yes) extraction; None, with ``outcome.reason`` said, when
        there is nothing to store."""
        outcome.triage_called = True
        self.counts.triage += 1
        triage = await self._ask(self._triage_prompt, text, TriageReply, "triage", learning)
        if triage.value is None:
            outcome.reason = f"triage reply unusable: {triage.reason}"
            log.info("message %d: %s", message_id, outcome.reason)
            return None
        if not triage.value.durable_fact:
            outcome.reason = "triage: no durable fact"
            return None

        outcome.durable = True
        outcome.extraction_called = True
        self.counts.extraction += 1
        extraction = await self._ask(
            self._extraction_prompt, text, ExtractionReply, "extraction", learning
        )
        if extraction.value is None:
            outcome.reason = f"extraction reply unusable: {extraction.reason}"
            log.info("message %d: %s", message_id, outcome.reason)
            return None
        for problem in extraction.value.dropped:
            log.info("message %d: extraction item dropped: %s", message_id, problem)
        if not extraction.value.facts and extraction.value.dropped:
            outcome.reason = (
                f"extraction reply unusable: no valid fact ({extraction.value.dropped[0]})"
            )
            return None
        return extraction.value.facts

    async def _ask(
        self,
        instructions: str,
        text: str,
        schema: type[BaseModel],
        role: str,
        learning: LearningModel,
    ):
        messages = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": text},
        ]
        return await learning.client.structured(messages, schema, role=role, model=learning.model)

    async def _reconcile(
        self,
        message: Message,
        content: str,
        fact: ExtractedFact,
        outcome: CriticalInfoOutcome,
        *,
        write_key: str | None = None,
        project_id: int | None = None,
        explicit: bool = False,
        learning: LearningModel | None = None,
    ) -> None:
        """Compare the fact with the similar ones its chat sees (its project's and those
        of no project; another project's are never read into this chat's prompts nor
        changed by it), then reinforce, replace or add. ``explicit``: the user asked to
        keep it (a new memory is active whatever the policy would say)."""
        key = _fact_write_key(write_key, content)
        if self.facts_by_rules:
            # No model weighs it: a new home, name or age replaces the one before
            # (core.rules.slots); a pinned or edited one gets a conflict instead.
            replaced = await replace_by_rule(
                self.memories,
                content,
                conversation_id=message.conversation_id,
                actor=ACTOR,
                category=fact.category,
                confidence=fact.confidence,
                sources=[message.id],
                write_key=key,
            )
            if replaced is not None:
                outcome.stored.append(replaced)
                return
        similar = [
            (existing, similarity)
            for existing, similarity in await self.intake.similar_facts(content)
            if existing.project_id is None or existing.project_id == project_id
        ]
        for existing, similarity in similar:
            relation = await self._relation(
                existing, content, similarity, learning or LearningModel(self.client)
            )
            if relation in ("refinement", "contradiction") and existing.project_id != project_id:
                # A project's chat does not rewrite what every chat sees: the new
                # wording stays the project's, beside the memory it would replace.
                break
            try:
                if relation == "duplicate":
                    await self._reinforce(existing.id, message, fact, key, outcome)
                    return
                if relation in ("refinement", "contradiction"):
                    stored = await self._replace(existing.id, message, content, fact, key)
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
            explicit=explicit,
            write_key=key,
        )
        outcome.stored.append(stored)

    async def _reinforce(
        self,
        memory_id: int,
        message: Message,
        fact: ExtractedFact,
        key: str | None,
        outcome: CriticalInfoOutcome,
    ) -> None:
        """``message`` said the fact of memory ``memory_id`` again."""
        await self.memories.reinforce(
            memory_id,
            actor=ACTOR,
            source_message_ids=[message.id],
            confidence=fact.confidence,
            write_key=key,
        )
        outcome.reinforced.append(memory_id)

    async def _replace(
        self,
        old_id: int,
        message: Message,
        content: str,
        fact: ExtractedFact,
        key: str | None,
    ) -> MemoryItem:
        """``content`` as the successor of memory ``old_id`` (or, where that one is
        pinned or edited, a conflict for the user)."""
        return await self.memories.propose_change(
            old_id,
            content,
            actor=ACTOR,
            category=fact.category,
            confidence=fact.confidence,
            sources=[message.id],
            conversation_id=message.conversation_id,
            write_key=key,
        )

    async def _relation(
        self, existing: MemoryItem, content: str, similarity: float, learning: LearningModel
    ) -> str:
        # Only the same words are the same fact without asking. Near-identical wording is
        # exactly how a contradiction looks: "is allergic" / "is not allergic" (cosine
        # 0.98), house 12 / 14, May 3 / May 5.
        if normalised(existing.content) == normalised(content):
            return "duplicate"
        if self.facts_by_rules:
            # The model that can't pick facts can't weigh two either: both are kept,
            # and the user sees both in the panel (a new home, name or age replaced the
            # one before already, in _reconcile).
            return "unrelated"
        if existing.id in learning.withhold.memory_ids:
            # A local-only memory never goes to a learner that runs elsewhere: both stay,
            # and the user sees both in the panel.
            return "unrelated"
        self.counts.reconcile += 1
        prompt = self._reconcile_prompt.format(existing=existing.content, new=content)
        reply = await learning.client.structured(
            [{"role": "user", "content": prompt}],
            RelationReply,
            role="extraction",
            model=learning.model,
        )
        if reply.value is None:
            # Unsure: keep both rather than overwrite a memory on a guess.
            log.info("reconcile reply unusable (%s); storing the fact as new", reply.reason)
            return "unrelated"
        return reply.value.relation
