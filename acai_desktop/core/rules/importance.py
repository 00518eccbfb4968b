"""How much a memory matters: a small, documented formula, not a model.

    importance = content + (1 - content) * use

    content = prior(text, kind) * (0.5 + 0.5 * confidence)
    use     = 0.5 * (1 - exp(-use_count / 3)) * 0.5 ** (days_since_last_use / 30)

* ``prior`` (0..1) starts from how long the fact stays true
  (:mod:`~acai_desktop.core.rules.durability`: the text's cues and the extractor's
  category): lasting (identity, health, family, home, work, long-term preferences and
  commitments) 0.65, neutral 0.20, passing (moods, today's plans, the weather) 0.12;
  a summary 0.30 whatever it says.
  Then: an explicit request to remember ("remember", "don't forget", "note that")
  +0.30; a length in the sweet spot of one focused statement (5-60 words) +0.10, very
  short (under 3 words) -0.20, rambling (over 150 words) -0.10; a question -0.10 (it
  asks, it doesn't tell); a summary +0.15, a note +0.10. Text made only of small talk
  ("okay thanks", "got it") gets 0.05. With the policy's threshold of 0.35, a lasting
  fact is long-term from its first mention, a passing or neutral one stays temporary
  until it is said again.
* ``confidence`` is the extractor's belief that the fact is true; it discounts, it
  can't create importance (a certain "okay" is still unimportant), hence the product.
* ``use`` grows with how often retrieval used the memory (saturating: the third use
  matters less than the first) and fades with a 30-day half-life since the last use.
  It can only raise importance, never lower it below what the content earns.
* ``explicit`` (the user asked to store it) floors the result at 0.80.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from acai_desktop.core.clock import parse_iso
from acai_desktop.core.rules.durability import Durability, durability_of

EXPLICIT_FLOOR = 0.80
USE_WEIGHT = 0.5
USE_SATURATION = 3.0
USE_HALF_LIFE_DAYS = 30.0

_WORD = re.compile(r"[\w']+", re.UNICODE)
SUMMARY_BASE = 0.30
DURABILITY_PRIOR = {Durability.LASTING: 0.65, Durability.NEUTRAL: 0.20, Durability.PASSING: 0.12}
_EXPLICIT = re.compile(
    r"\b(remember|don't forget|do not forget|note that|keep in mind|for future reference)\b",
    re.IGNORECASE,
)
_SMALL_TALK = frozenset(
    (  # noqa: SIM905 - a word list reads best as words
        "ok okay k kk thanks thank you thx ty got it sure yes yeah yep no nope hi hello hey "
        "bye cool nice great lol haha fine alright right good sounds np welcome cheers"
    ).split()
)
_KIND_BONUS = {"summary": 0.15, "note": 0.10, "fact": 0.0}


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def content_prior(content: str, *, kind: str = "fact", category: str | None = None) -> float:
    """What the text (and its extracted category) suggest, in [0, 1] (see the module
    docstring)."""
    words = [w.lower() for w in _WORD.findall(content)]
    if not words or all(w in _SMALL_TALK for w in words):
        return 0.05
    if kind == "summary":
        # A summary stands for the messages it folded: judged by its cues, a summary of a
        # day's chat would stay temporary and those messages would leave every prompt.
        prior = SUMMARY_BASE
    else:
        prior = DURABILITY_PRIOR[durability_of(content, category)]
    if _EXPLICIT.search(content):
        prior += 0.30
    if len(words) < 3:
        prior -= 0.20
    elif len(words) > 150:
        prior -= 0.10
    elif 5 <= len(words) <= 60:
        prior += 0.10
    if content.rstrip().endswith("?"):
        prior -= 0.10
    prior += _KIND_BONUS.get(str(kind), 0.0)
    return _clamp(prior)


def use_boost(use_count: int, last_used_at: str | None, *, now: datetime | None = None) -> float:
    """The share of the remaining headroom that use earns, in [0, USE_WEIGHT]."""
    if use_count <= 0:
        return 0.0
    recency = 1.0
    if last_used_at:
        now = now or datetime.now(UTC)
        days = max(0.0, (now - parse_iso(last_used_at)).total_seconds() / 86400)
        recency = 0.5 ** (days / USE_HALF_LIFE_DAYS)
    return USE_WEIGHT * (1 - math.exp(-use_count / USE_SATURATION)) * recency


def score_importance(
    content: str,
    *,
    kind: str = "fact",
    category: str | None = None,
    confidence: float = 1.0,
    explicit: bool = False,
    use_count: int = 0,
    last_used_at: str | None = None,
    now: datetime | None = None,
) -> float:
    """Importance in [0, 1] (formula in the module docstring), rounded to 4 places."""
    content_score = content_prior(content, kind=kind, category=category) * (
        0.5 + 0.5 * _clamp(confidence)
    )
    use = use_boost(use_count, last_used_at, now=now)
    score = content_score + (1 - content_score) * use
    if explicit:
        score = max(score, EXPLICIT_FLOOR)
    return round(_clamp(score), 4)
