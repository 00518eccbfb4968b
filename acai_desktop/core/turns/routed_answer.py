"""A turn's answer from the model the router chose for it (issue 42), or from the chat's
model when the chat routes nothing (its routing, else its project's, else Settings'),
has a model of its own (pinned by hand, never rerouted) or no reachable model fits.

When the chosen model fails before its first words (unreachable, rate-limited, its
server broken, the prompt too long for it), the next that fits answers, once
(``routing/fallback.py``); once words have come, a failure is the answer's, kept as it is.
The decision goes with the answer (its plan's ``route``): the footer's few words and,
for Sources, every candidate with what ruled it out. A turn with an image that the
chat's model answers is refused first when that model is known not to see
(``routing/sight.py``); the router itself rules out models that can't.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from acai_desktop.core.conversations.chat_settings import EffectiveSettings
from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.routing.fallback import FALLS_BACK, Answered, answer_with_fallback
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.routing.selection import Candidate, Policy, Route, Where
from acai_desktop.core.routing.sight import ModelSight
from acai_desktop.core.store.local_only import LocalOnly
from acai_desktop.core.turns.answer_stream import AnswerStream
from acai_desktop.core.turns.answer_text import AnswerText
from acai_desktop.core.turns.privacy import TurnPrivacy, local_only_in, refusal, withheld_record
from acai_desktop.core.turns.turn_result import TurnResult


@dataclass
class AnswerPlan:
    """Who answers a turn, from which prompt: the route when the router chose (None: the
    chat's own model), and the prompt as it goes out (local-only items withheld when the
    answering model runs elsewhere)."""

    context: BuiltContext
    in_prompt: dict[int, MemoryItem]
    route: Route | None = None


Rebuild = Callable[[LocalOnly], Awaitable[tuple[BuiltContext, dict[int, MemoryItem]]]]


class RoutedAnswers:
    def __init__(
        self,
        answers: AnswerStream,
        router: TurnRouter | None,
        privacy: Callable[[int], Awaitable[tuple[bool, LocalOnly]]] | None = None,
        sight: ModelSight | None = None,
    ) -> None:
        self.answers = answers
        self.router = router
        #: A chat's privacy: whether it is local only, and everything marked local only
        #: (None: nothing ever is, as in evaluations).
        self.privacy = privacy
        #: Whether the chat's model sees a turn's images, when the router did not choose.
        self.sight = sight or ModelSight()

    async def plan(
        self,
        conversation_id: int,
        built: tuple[BuiltContext, dict[int, MemoryItem]],
        settings: EffectiveSettings,
        result: TurnResult,
        rebuild: Rebuild,
        image_ids: frozenset[int] = frozenset(),
    ) -> AnswerPlan:
        """Who answers the turn, and the prompt they get (core/turns/privacy.py);
        ``image_ids``: the images the message carries (one marked local only keeps the
        turn on this computer, as a local-only chat's words do)."""
        plan = AnswerPlan(*built)
        router, policy = self.router, settings.routing
        privacy = await self._privacy_of(conversation_id, plan.context, image_ids)
        # The turn's needs as the plan keeps them: private or not is known only now.
        needs = replace(result.plan.needs, private=privacy.private)
        result.plan = replace(result.plan, needs=needs)
        if router is None:
            return plan
        routed = settings.own_model is None and policy not in (None, "off")
        if not routed and await router.own_where() is Where.THIS_COMPUTER:
            return plan  # nothing leaves this computer
        needs = replace(result.plan.needs, prompt_tokens=plan.context.tokens)
        if routed:
            chosen_by = Policy[policy.upper()]
            plan.route = await router.route(needs, chosen_by, private=privacy.private)
            if plan.route.chosen is not None:
                return plan  # a private turn's route holds only this computer's models
            if privacy.private and not privacy.whole:
                # No model here can do it: the local-only items stay here instead.
                plan = await self._withheld(plan, privacy, rebuild)
                needs = replace(needs, prompt_tokens=plan.context.tokens)
                plan.route = await router.route(needs, chosen_by)
                # The chosen model answers the prompt without them, else the chat's own.
                if (chosen := plan.route.chosen) is not None:
                    provider, where = chosen.provider, chosen.where
                else:
                    provider, where = router.own_provider, await router.own_where()
                result.withheld = withheld_record(privacy.in_prompt, provider, where)
                return plan
        if not privacy.private:
            return plan
        where = await router.own_where()
        if where is Where.THIS_COMPUTER:
            return plan
        if privacy.whole:
            # A local-only chat's own words (or image) can't be left out: a model here
            # answers it.
            if settings.own_model is None:
                local = await router.route(needs, Policy.LOCAL_ONLY, private=True)
                if local.chosen is not None:
                    plan.route = local
                    return plan
            model = settings.model or self.answers.client.model_for("chat")
            pinned = settings.own_model is not None
            raise refusal(model, router.own_provider, pinned=pinned, image=not privacy.chat)
        plan = await self._withheld(plan, privacy, rebuild)
        result.withheld = withheld_record(privacy.in_prompt, router.own_provider, where)
        return plan

    async def _privacy_of(
        self, conversation_id: int, context: BuiltContext, image_ids: frozenset[int]
    ) -> TurnPrivacy:
        if self.privacy is None:
            return TurnPrivacy()
        chat, marked = await self.privacy(conversation_id)
        image = bool(image_ids & marked.document_ids)
        return TurnPrivacy(chat, local_only_in(context, marked), marked, image)

    @staticmethod
    async def _withheld(plan: AnswerPlan, privacy: TurnPrivacy, rebuild: Rebuild) -> AnswerPlan:
        """The prompt made again without anything local only, for a model that runs
        elsewhere (the route stays: the caller routes again or keeps it)."""
        context, in_prompt = await rebuild(privacy.marked)
        return AnswerPlan(context, in_prompt, plan.route)

    async def stream(
        self,
        answer: Message,
        plan: AnswerPlan,
        text: AnswerText,
        settings: EffectiveSettings,
        stats: StreamStats,
        result: TurnResult,
    ) -> None:
        router, route, context = self.router, plan.route, plan.context
        if router is None or route is None:
            await self._chat_model_sees(settings, result, routed=False)
            await self.answers.stream(answer, context, text, settings, stats)
            return
        if route.chosen is None:
            result.route = route_record(route, None)
            await self._chat_model_sees(settings, result, routed=True)
            await self.answers.stream(answer, context, text, settings, stats)
            return
        loop = asyncio.get_running_loop()

        async def call(candidate: Candidate) -> None:
            attempt = StreamStats()
            began = loop.time()
            try:
                await self.answers.stream(
                    answer, context, text, settings, attempt,
                    client=router.client_for(candidate), model=candidate.model,
                )  # fmt: skip
            except FALLS_BACK as error:
                if text.text():  # words came: the answer is this model's, as it stands
                    raise ModelReplyError(str(error)) from error
                raise
            router.answered(candidate, attempt, text.text(), loop.time() - began)
            for name in ("finish_reason", "chunks", "prompt_tokens", "completion_tokens"):
                setattr(stats, name, getattr(attempt, name))

        answered = await answer_with_fallback(route, call, router.failed)
        result.answered_by = answered.by.model
        result.route = route_record(route, answered)

    async def _chat_model_sees(
        self, settings: EffectiveSettings, result: TurnResult, *, routed: bool
    ) -> None:
        """Refuse, before any call, a turn with an image for a chat's model known not to
        see images (ModelCantSeeError: which model, what to do)."""
        if result.plan.needs.needs_vision:
            model = settings.model or self.answers.client.model_for("chat")
            pinned = settings.own_model is not None
            await self.sight.require(model, pinned=pinned, routed=routed)


def route_record(route: Route, answered: Answered | None) -> dict:
    """The decision as the answer keeps it (JSON)."""
    if answered is None:
        reason = f"{route.reason_for(None)}; the chat's model answered"
    else:
        reason = route.reason_for(answered.by)
    return {
        "policy": str(route.policy),
        "kind": str(route.kind),
        "reason": reason,
        "answered_by": answered.by.model if answered else None,
        "fallback": answered.note() if answered and answered.instead_of else None,
        "failed": answered.instead_of.model if answered and answered.instead_of else None,
        "considered": [
            {
                "model": c.candidate.model,
                "provider": c.candidate.provider,
                "where": str(c.candidate.where),
                "ruled_out": c.ruled_out,
            }
            for c in route.considered
        ],
    }
