"""Which model a learning job asks (issue 42, items 3 and 4): triage, extraction, the
reconcile call, summaries and titles.

Without routing, the profile's learner answers them, as before (the role models of the
chat's server, or the built-in model's learning server). When the chat routes its turns
(its policy, else its project's, else Settings'), its jobs go through the same router
to the cheapest model that does JSON well (one that keeps to a JSON schema; else the
cheapest that fits).

A job that learns from a local-only chat never asks a model that runs elsewhere: a
model on this computer does it, or the job learns nothing (nothing is sent). A job for
another chat that may go elsewhere carries what is local only (``withhold``), so no
local-only memory is put beside a new fact in a remote reconcile prompt.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from acai_desktop.core.models.chat_model import ChatModel
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.routing.selection import Candidate, Policy, Route, Where
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.core.routing.turn_needs import TurnNeeds
from acai_desktop.core.store.local_only import NOTHING, LocalOnly

#: What a learning call needs: a short prompt, JSON back, nothing to see.
LEARNING_NEEDS = TurnNeeds(TurnKind.CHAT, TurnKind.CHAT, 1_000, False)


@dataclass(frozen=True)
class LearningModel:
    """The model a job asks: ``client``, and ``model`` on it (None: the role's model)."""

    client: ChatModel
    model: str | None = None
    where: Where = Where.THIS_COMPUTER
    #: What must stay out of its prompts (NOTHING when it runs on this computer).
    withhold: LocalOnly = NOTHING


class LearningModels:
    def __init__(
        self,
        learner: ChatModel,
        router: TurnRouter | None = None,
        *,
        own_learning_server: bool = False,
        routing: Callable[[int | None], Awaitable[str | None]] | None = None,
        privacy: Callable[[int], Awaitable[tuple[bool, LocalOnly]]] | None = None,
    ) -> None:
        self.learner = learner
        self.router = router
        #: The learner is the built-in model's own server, on this computer.
        self.own_learning_server = own_learning_server
        #: A chat's routing policy (None or "off": the learner answers).
        self._routing = routing
        #: A chat's privacy (conversations.privacy_of; None: nothing is ever local only).
        self._privacy = privacy

    async def for_chat(self, conversation_id: int | None) -> LearningModel | None:
        """The model for a job that learns from ``conversation_id``'s messages, or None
        when none may: the chat is local only and no model on this computer can."""
        router = self.router
        if router is None or self._privacy is None:
            return LearningModel(self.learner)
        private, marked = False, NOTHING
        if conversation_id is not None:
            private, marked = await self._privacy(conversation_id)
        policy = await self._routing(conversation_id) if self._routing else None
        if policy not in (None, "off"):
            route = await router.route(LEARNING_NEEDS, Policy.CHEAPEST, private=private)
            if (chosen := _json_first(route)) is not None:
                if chosen.base_url is None:  # the built-in model: its learning server
                    return LearningModel(self.learner)
                withhold = NOTHING if chosen.where is Where.THIS_COMPUTER else marked
                client = router.client_for(chosen)
                return LearningModel(client, chosen.model, chosen.where, withhold)
        where = Where.THIS_COMPUTER if self.own_learning_server else await router.own_where()
        if where is Where.THIS_COMPUTER:
            return LearningModel(self.learner, None, where)
        if not private:
            return LearningModel(self.learner, None, where, marked)
        chosen = _json_first(await router.route(LEARNING_NEEDS, Policy.LOCAL_ONLY, private=True))
        if chosen is None:
            return None
        return LearningModel(router.client_for(chosen), chosen.model, chosen.where)


def _json_first(route: Route) -> Candidate | None:
    """The cheapest model that keeps to a JSON schema, else the cheapest that fits."""
    if keeps_json := [c for c in route.ranked if c.capabilities.json_schema]:
        return keeps_json[0]
    return route.chosen
