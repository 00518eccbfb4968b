"""Learning in bulk, told by its progress rather than memory by memory.

What the processors learn from the user's chat is announced one memory at a time (the
window says "Memory updated: …" with Undo). Learning from thousands of imported
messages is not: its progress is in the status bar, and an Undo offered for whichever
memory came last read as a stray. A job runs its handler inside :func:`learning_quietly`;
the memory service marks what it adds meanwhile as not to be told (``MemoryAdded.told``).
A context variable, as the handler's writes run in its own task, however deep.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("learning_quietly", default=False)


def is_quiet() -> bool:
    """Whether what is learned now is told by its progress only."""
    return _QUIET.get()


def learning_quietly(handler: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """``handler``, with what it learns not announced memory by memory."""

    async def quietly(*args: Any, **kwargs: Any) -> T:
        token = _QUIET.set(True)
        try:
            return await handler(*args, **kwargs)
        finally:
            _QUIET.reset(token)

    return quietly
