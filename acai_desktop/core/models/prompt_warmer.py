"""Having a local model server read a prompt's known start while nobody waits.

A local server keeps what it read of the last prompt, so a turn whose prompt starts the
same way reads only what is new (see core.memory.context_builder). Two starts are known
before the user sends anything, and reading them then saves the user the wait:

- at start-up, the system prompt (about 380 of the built-in model's tokens, several
  seconds on a laptop CPU): without it the first message of a session reads it all;
- after an answer, when the next prompt will not start with what the server has read:
  the history overflowed its room and the next turn cuts its oldest messages
  (prompt_history.history_start). Its prompt then starts differently and the server
  reads the whole remaining history again (350-640 tokens in ``bench answers``, 6-16 s
  on the 2-core test machine) before the first word. Read now, while the user reads
  the answer and types, the next turn reads only its message.

A warm-up is a one-token completion of that start. It never delays a turn: a turn
cancels it (:class:`~acai_desktop.core.events.TurnStarted`), and what the server had
begun reading is a prefix of the turn's own prompt, so the turn reads that much less
(a request the server has begun reading can't be taken back). A newer warm-up replaces
an older one. Only servers that run on this machine get warm-ups (they cost nothing but
time); a provider that bills by the request does not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from acai_desktop.core import events as ev
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.replies import Messages

log = logging.getLogger(__name__)


class PromptWarmer:
    def __init__(self, client: ModelClient, events: EventBus) -> None:
        self.client = client
        self._task: asyncio.Task | None = None
        self._unsubscribe: Callable[[], None] | None = events.subscribe(
            ev.TurnStarted, self._on_turn_started
        )

    def warm(
        self, start: Callable[[], Awaitable[Messages | None]], *, model: str | None = None
    ) -> None:
        """Have the server read the prompt's start that ``start()`` gives (None: nothing
        to read), in the background; a newer warm-up or a turn cancels it."""
        self.cancel()
        self._task = asyncio.create_task(self._read(start, model), name="prompt warm-up")

    @property
    def in_flight(self) -> bool:
        return self._task is not None and not self._task.done()

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def wait(self) -> None:
        """Until the warm-up in flight (if any) has ended, however it ends."""
        if self._task is not None:
            await asyncio.wait([self._task])

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.cancel()
        await self.wait()

    def _on_turn_started(self, _event: ev.TurnStarted) -> None:
        self.cancel()

    async def _read(
        self, start: Callable[[], Awaitable[Messages | None]], model: str | None
    ) -> None:
        try:
            messages = await start()
            if not messages:
                return
            await self.client.create_completion(messages, role="chat", max_tokens=1, model=model)
        except AcaiError as error:  # the turn that follows will say what is wrong
            log.info("prompt warm-up skipped: %s", error)
        except Exception:
            # A warm-up only saves time: whatever went wrong must not reach the user.
            log.warning("prompt warm-up failed", exc_info=True)


def same_start(read: Messages, start: Messages) -> bool:
    """Whether a prompt starting with ``start`` starts with what the server read last
    (``read``: the last prompt and its answer): then it reads only what is new anyway."""
    return list(start) == list(read)[: len(start)]
