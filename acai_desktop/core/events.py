"""A small, Qt-free observer so views update live.

Core services ``emit`` named events; the UI (through a Qt bridge) and other core
services ``subscribe``. Handlers run synchronously on the emitting thread, which is
always the asyncio loop's thread: services emit after their database call returns.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# Event names. One constant per kind of news, so a typo fails at import time.
MEMORY_ADDED = "memory_added"
MEMORY_CHANGED = "memory_changed"
MEMORY_REMOVED = "memory_removed"
MESSAGE_ADDED = "message_added"
MESSAGE_UPDATED = "message_updated"
CONVERSATION_CHANGED = "conversation_changed"
CONVERSATION_REMOVED = "conversation_removed"
JOB_STATUS_CHANGED = "job_status_changed"
EMBEDDING_PROGRESS = "embedding_progress"

Handler = Callable[[Any], None]


@dataclass
class EventBus:
    _handlers: dict[str, list[Handler]] = field(default_factory=lambda: defaultdict(list))

    def subscribe(self, event: str, handler: Handler) -> Callable[[], None]:
        """Call ``handler(payload)`` on every ``event``; returns an unsubscribe function."""
        self._handlers[event].append(handler)

        def unsubscribe() -> None:
            if handler in self._handlers[event]:
                self._handlers[event].remove(handler)

        return unsubscribe

    def emit(self, event: str, payload: Any = None) -> None:
        # One broken view must not stop the others from hearing the news, nor undo
        # the write that caused it; the error is logged with its traceback.
        for handler in list(self._handlers.get(event, ())):
            try:
                handler(payload)
            except Exception:
                log.exception("handler %r for event %s failed", handler, event)
