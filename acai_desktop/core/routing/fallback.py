"""When the chosen model fails, the next one that can do the turn answers, once, and the
answer says so (issue 42, item 5).

Only failures another model can mend fall back: the server can't be reached, it is
rate-limited or broken (5xx), it doesn't have the model, or the prompt overflowed its
window. A refused key or a malformed reply is the user's to fix and is raised as it is.
The failure is reported (``failed``) so it counts in the model's error rate.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from acai_desktop.core.errors import (
    ContextTooLongError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitedError,
    ModelServerError,
    ModelUnreachableError,
)
from acai_desktop.core.routing.selection import Candidate, Route

T = TypeVar("T")

_WHY = (
    (ContextTooLongError, "the prompt did not fit its window"),
    (ModelRateLimitedError, "it was rate-limited"),
    (ModelUnreachableError, "it could not be reached"),
    (ModelServerError, "its server failed"),
    (ModelNotFoundError, "its server does not have it"),
)
FALLS_BACK = tuple(kind for kind, _ in _WHY)


class NoModelFitsError(ModelError):
    """No reachable model can do the turn (each candidate's reason is in the route)."""


@dataclass(frozen=True)
class Answered(Generic[T]):
    value: T
    by: Candidate
    #: The model that failed first, and why in a few words (None: no fallback).
    instead_of: Candidate | None = None
    because: str | None = None

    def note(self) -> str:
        """``answered by gpt-4o-mini because qwen2.5:7b failed: it could not be reached``."""
        if self.instead_of is None:
            return ""
        return f"answered by {self.by.model} because {self.instead_of.model} failed: {self.because}"


def why_it_failed(error: ModelError) -> str:
    return next((why for kind, why in _WHY if isinstance(error, kind)), "it failed")


async def answer_with_fallback(
    route: Route,
    call: Callable[[Candidate], Awaitable[T]],
    failed: Callable[[Candidate, ModelError], None] = lambda candidate, error: None,
) -> Answered[T]:
    """``call`` the route's first model; if it fails in a way another model can mend,
    the second, once. The second's failure is raised as the turn's."""
    if route.chosen is None:
        raise NoModelFitsError(
            "None of your models can answer this: "
            + "; ".join(f"{c.candidate.model}: {c.ruled_out}" for c in route.considered)
        )
    first = route.chosen
    try:
        return Answered(await call(first), first)
    except FALLS_BACK as error:
        failed(first, error)
        if len(route.ranked) < 2:
            raise
        second = route.ranked[1]
        try:
            value = await call(second)
        except ModelError as second_error:
            failed(second, second_error)
            raise
        return Answered(value, second, first, why_it_failed(error))
