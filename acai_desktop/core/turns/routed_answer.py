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
from dataclasses import replace

from acai_desktop.core.conversations.chat_settings import EffectiveSettings
from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.routing.fallback import FALLS_BACK, Answered, answer_with_fallback
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.routing.selection import Candidate, Policy, Route
from acai_desktop.core.routing.sight import ModelSight
from acai_desktop.core.turns.answer_stream import AnswerStream
from acai_desktop.core.turns.answer_text import AnswerText
from acai_desktop.core.turns.turn_result import TurnResult


class RoutedAnswers:
    def __init__(self, answers: AnswerStream, router: TurnRouter | None, sight: ModelSight) -> None:
        self.answers = answers
        self.router = router
        #: Whether the chat's model sees a turn's images, when the router did not choose.
        self.sight = sight

    async def stream(
        self,
        answer: Message,
        context: BuiltContext,
        text: AnswerText,
        settings: EffectiveSettings,
        stats: StreamStats,
        result: TurnResult,
    ) -> None:
        router = self.router
        policy = settings.routing
        if router is None or settings.own_model is not None or policy in (None, "off"):
            await self._chat_model_sees(settings, result, routed=False)
            await self.answers.stream(answer, context, text, settings, stats)
            return
        needs = replace(result.plan.needs, prompt_tokens=context.tokens)
        route = await router.route(needs, Policy[policy.upper()])
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
