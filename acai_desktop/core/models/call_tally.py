"""Which piece of work got real answers from the model.

The job runner revives failed jobs when the model is seen working, and "working" means a
real completion succeeded — not that ``/v1/models`` answers (a server may list its
models while every completion fails). A job that failed part-way may have had some calls
answered, so the runner asks, per job, whether the model answered it at all; the client
notes every completion that succeeded here, in the tally of the task it runs in.

A context variable rather than a listener on the client: asyncio gives each task its own
copy of the context, so a tally is counted only by the calls of the job that opened it
(and of tasks it starts), never by another job running beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class CallTally:
    #: Completions (streamed or not) that the model finished.
    answered: int = 0


_current: ContextVar[CallTally | None] = ContextVar("model_call_tally", default=None)


@contextmanager
def tallying_model_answers() -> Iterator[CallTally]:
    """Count the completions that succeed inside this block (in this task and the
    tasks it starts)."""
    tally = CallTally()
    token = _current.set(tally)
    try:
        yield tally
    finally:
        _current.reset(token)


def note_model_answered() -> None:
    """A completion succeeded (called by the client)."""
    tally = _current.get()
    if tally is not None:
        tally.answered += 1
