"""Which model answers a turn: the models that can't do it are ruled out, each with its
reason, and the user's policy picks among the rest (issue 42, item 3).

A model can't do a turn when the turn is private (local only) and the model runs
elsewhere, when the policy keeps turns on this computer, when the prompt and the answer
it expects don't fit its window, when the turn has an image and it can't see, when it is
too small for the kind of work (a tier-1 model gets no code or arithmetic), or when its
expected cost passes the ceiling per answer. The policies then:

* best quality: the highest tier (one more for a model strong at the kind), then the
  fastest;
* balanced: the cheapest of the models within one tier of the best, then the fastest;
* cheapest: the lowest expected cost, then the highest tier;
* fastest: the shortest expected answer time, then the highest tier;
* on this computer only: best quality among the models on this computer.

Expected time and cost come from the model's measured speed when there is one, else
from where it runs and its tier (``_assumed_speed``), and from the answer length the
kind of turn usually takes.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from acai_desktop.core.routing.known_models import Capabilities
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.core.routing.turn_needs import TurnNeeds


class Where(StrEnum):
    THIS_COMPUTER = "this computer"
    LOCAL_NETWORK = "the local network"
    CLOUD = "the cloud"


class Policy(StrEnum):
    BEST = "best quality"
    BALANCED = "balanced"
    CHEAPEST = "cheapest"
    FASTEST = "fastest"
    LOCAL_ONLY = "on this computer only"


def where_it_runs(base_url: str | None) -> Where:
    """Where a server at ``base_url`` runs (None: the app's own server, on this computer)."""
    if base_url is None:
        return Where.THIS_COMPUTER
    host = (urlsplit(base_url).hostname or "").lower()
    if host in ("localhost", "") or host.endswith(".localhost"):
        return Where.THIS_COMPUTER
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        # A bare name ("nas") or a local domain is a machine of the user's network.
        local = "." not in host or host.endswith((".local", ".lan", ".home", ".internal"))
        return Where.LOCAL_NETWORK if local else Where.CLOUD
    if address.is_loopback:
        return Where.THIS_COMPUTER
    return Where.LOCAL_NETWORK if address.is_private or address.is_link_local else Where.CLOUD


@dataclass(frozen=True)
class Speed:
    """A model's speed as measured over its last calls (medians), or as assumed."""

    first_token_seconds: float
    tokens_per_second: float
    error_rate: float = 0.0
    calls: int = 0


@dataclass(frozen=True)
class Candidate:
    """A model the user can reach, and what is known of it."""

    model: str
    #: Who serves it, as the user knows it ("OpenAI", "Ollama", "the built-in server").
    provider: str
    where: Where
    window_tokens: int
    capabilities: Capabilities
    measured: Speed | None = None
    #: Where its server listens (None: the built-in server).
    base_url: str | None = None

    @property
    def speed(self) -> Speed:
        return self.measured or _assumed_speed(self.where, self.capabilities.quality)


#: The smallest tier trusted with each kind of turn.
MIN_QUALITY = {TurnKind.CODE: 2, TurnKind.REASONING: 2}
#: The answer length a kind of turn usually takes, in tokens.
EXPECTED_ANSWER_TOKENS = {
    TurnKind.CHAT: 300,
    TurnKind.CODE: 700,
    TurnKind.REASONING: 600,
    TurnKind.WRITING: 900,
    TurnKind.VISION: 300,
    TurnKind.LONG: 600,
}


def _assumed_speed(where: Where, quality: int) -> Speed:
    if where is Where.CLOUD:
        return Speed(0.8, 60.0)
    # On the user's own hardware a bigger model is slower; a LAN adds a little.
    per_tier = {1: 60.0, 2: 30.0, 3: 15.0, 4: 6.0, 5: 2.0}[quality]
    return Speed(1.0 if where is Where.THIS_COMPUTER else 1.2, per_tier)


@dataclass(frozen=True)
class Considered:
    candidate: Candidate
    #: Why it can't do the turn, or None when it could.
    ruled_out: str | None
    expected_cost: float
    expected_seconds: float


@dataclass(frozen=True)
class Route:
    """The decision: the models that can do the turn, best first by the policy (the
    first answers; the next takes over if it fails), and every candidate with what
    ruled it out."""

    ranked: tuple[Candidate, ...]
    kind: TurnKind
    policy: Policy
    considered: tuple[Considered, ...]

    @property
    def chosen(self) -> Candidate | None:
        return self.ranked[0] if self.ranked else None

    @property
    def reason(self) -> str:
        """A few words for the answer's footer: ``code → qwen2.5-coder on this computer``."""
        return self.reason_for(self.chosen)

    def reason_for(self, answering: Candidate | None) -> str:
        """The footer's words when ``answering`` wrote the answer (the next after a
        fallback; None: no model of the user's could do the turn)."""
        if answering is None:
            return f"{self.kind} → no model can do it"
        return f"{self.kind} → {answering.model} on {answering.where}"


def choose_model(
    needs: TurnNeeds,
    candidates: list[Candidate],
    policy: Policy = Policy.BALANCED,
    *,
    private: bool = False,
    cost_ceiling: float | None = None,
) -> Route:
    """The model for a turn with ``needs`` under ``policy``; ``private``: the turn holds
    something marked local only; ``cost_ceiling``: dollars per answer at most."""
    answer_tokens = EXPECTED_ANSWER_TOKENS[needs.kind]
    considered = []
    for candidate in candidates:
        caps, speed = candidate.capabilities, candidate.speed
        cost = (needs.prompt_tokens * caps.price_in + answer_tokens * caps.price_out) / 1e6
        seconds = (speed.first_token_seconds + answer_tokens / speed.tokens_per_second) / max(
            1.0 - speed.error_rate, 0.1
        )
        reason = _ruled_out(needs, candidate, policy, private, cost, cost_ceiling, answer_tokens)
        considered.append(Considered(candidate, reason, cost, seconds))
    able = [c for c in considered if c.ruled_out is None]
    ranked = _ranked(able, policy, needs.text_kind) if able else []
    return Route(tuple(ranked), needs.kind, policy, tuple(considered))


def _ruled_out(
    needs: TurnNeeds,
    candidate: Candidate,
    policy: Policy,
    private: bool,
    cost: float,
    cost_ceiling: float | None,
    answer_tokens: int,
) -> str | None:
    caps = candidate.capabilities
    if private and candidate.where is not Where.THIS_COMPUTER:
        return f"local only, and it runs on {candidate.where}"
    if policy is Policy.LOCAL_ONLY and candidate.where is not Where.THIS_COMPUTER:
        return f"the policy keeps turns on this computer; it runs on {candidate.where}"
    if needs.prompt_tokens + answer_tokens > candidate.window_tokens:
        return (
            f"its {candidate.window_tokens:,}-token window is too small "
            f"(about {needs.prompt_tokens + answer_tokens:,} needed)"
        )
    if needs.needs_vision and not caps.vision:
        return "it can't see images"
    if caps.quality < MIN_QUALITY.get(needs.text_kind, 1):
        return f"too small for {needs.text_kind}"
    if cost_ceiling is not None and cost > cost_ceiling:
        return f"about ${cost:.4f} an answer, over the ${cost_ceiling:.4f} ceiling"
    return None


def _skill(considered: Considered, kind: TurnKind) -> int:
    caps = considered.candidate.capabilities
    return caps.quality + (1 if kind in caps.strong_at else 0)


def _ranked(able: list[Considered], policy: Policy, kind: TurnKind) -> list[Candidate]:
    def skill(c: Considered) -> int:
        return _skill(c, kind)

    def order(*keys):
        return [c.candidate for c in sorted(able, key=lambda c: tuple(k(c) for k in keys))]

    def cost(c: Considered) -> float:
        return c.expected_cost

    def seconds(c: Considered) -> float:
        return c.expected_seconds

    def unskilled(c: Considered) -> int:
        return -skill(c)

    if policy is Policy.CHEAPEST:
        return order(cost, unskilled, seconds)
    if policy is Policy.FASTEST:
        return order(seconds, unskilled)
    if policy is Policy.BALANCED:
        # The models within a tier of the best, cheapest first; then the others, best
        # first (a fallback that must step down takes the best of what is left).
        best = max(skill(c) for c in able)

        def in_reach_by_cost(c: Considered) -> tuple:
            if skill(c) >= best - 1:
                return (0, 0)
            return (1, -skill(c))

        return order(in_reach_by_cost, cost, seconds)
    return order(unskilled, seconds)  # best quality, and the best on this computer
