"""Having a local model server read a prompt's known start while nobody waits.

A local server keeps what it read of the last prompt, so a turn whose prompt starts the
same way reads only what is new (see core.memory.context_builder). Two starts are known
before the user sends anything, and reading them then saves the user the wait:

- at start-up, the system prompt (about 380 of the built-in model's tokens, several
  seconds on a laptop CPU): without it the first message of a session reads it all;
- after an answer, when the next prompt will not start with what the server has read:
  the history overflowed its room and the next turn cuts its oldest messages
  (context_builder.history_start). Its prompt then starts differently and the server
  reads the whole remaining history again (350-640 tokens in ``bench answers``, 6-16 s
  on the 2-core test machine) before the first word. Read now, while the user reads
  the answer and types, the next turn reads only its message.

Background learning's prompts have a known start too: each call of the triage and the
extraction begins with the same system prompt (about 190 of the built-in model's tokens),
then the user's message (about 30). The server keeps a few read prompts in its RAM
cache and restores the one that starts the same way, but it saves a prompt only once its
reply is complete. On the single-slot built-in server a learning call the user's next
message interrupts is thrown away, read and all, so the same call read those 190 tokens
again at every message and, when the user sends every few seconds, never finished. These
*standing* starts (:meth:`PromptWarmer.keep_warm`) are read once, after the system prompt
at start-up; one a turn interrupted is read again after the turn, until each has been
read whole. Then every learning call reads only its message. While a warm-up runs, the
job runner starts no work that yields to turns (``JobRunner(server_busy=...)``): two
requests at once on that server cut each other short.

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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from acai_desktop.core import events as ev
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.llm.client import ModelClient
from acai_desktop.core.llm.replies import Messages

log = logging.getLogger(__name__)

#: Gives the prompt's start to read (None: nothing to read), when the warm-up runs.
StartSource = Callable[[], Awaitable[Messages | None]]


@dataclass(frozen=True)
class StandingStart:
    """A start every call of some background work begins with (see keep_warm)."""

    name: str
    start: StartSource
    model: str | None = None


class PromptWarmer:
    def __init__(
        self,
        client: ModelClient,
        events: EventBus,
        *,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self._task: asyncio.Task | None = None
        #: Told when a warm-up ends, however it ends (the job runner waits for it).
        self.on_idle = on_idle
        #: The standing starts not read whole yet, in order.
        self._standing: list[StandingStart] = []
        self._unsubscribers: list[Callable[[], None]] = [
            events.subscribe(ev.TurnStarted, self._on_turn_started),
            events.subscribe(ev.TurnEnded, self._on_turn_ended),
        ]

    def warm(self, start: StartSource, *, model: str | None = None) -> None:
        """Have the server read the prompt's start that ``start()`` gives (None: nothing
        to read), in the background, then the standing starts not read yet; a newer
        warm-up or a turn cancels it."""
        self.cancel()
        self._begin(start, model)

    def keep_warm(self, starts: Sequence[StandingStart]) -> None:
        """Have the server read these starts once, after the warm-up in flight (if any);
        one a turn interrupts is read again after the turn, until each is read whole."""
        self._standing = list(starts)
        if not self.in_flight:
            self._begin(None, None)

    @property
    def standing(self) -> list[str]:
        """The names of the standing starts not read whole yet."""
        return [standing.name for standing in self._standing]

    def _begin(self, start: StartSource | None, model: str | None) -> None:
        self._task = asyncio.create_task(self._run(start, model), name="prompt warm-up")
        if self.on_idle is not None:
            self._task.add_done_callback(lambda _task: self.on_idle())

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
        while self._unsubscribers:
            self._unsubscribers.pop()()
        self._standing = []
        self.cancel()
        await self.wait()

    def _on_turn_started(self, _event: ev.TurnStarted) -> None:
        self.cancel()

    def _on_turn_ended(self, _event: ev.TurnEnded) -> None:
        # A warm-up the turn left (the next start after an answer) reads them after it.
        if self._standing and not self.in_flight:
            self._begin(None, None)

    async def _run(self, start: StartSource | None, model: str | None) -> None:
        if start is not None:
            await self._read(start, model)
        while self._standing:
            standing = self._standing[0]
            # Cancelled (a turn), it stays for after the turn; read or failed, it's
            # done with: a server that can't read it would fail the same way again.
            await self._read(standing.start, standing.model)
            if self._standing and self._standing[0] is standing:
                self._standing.pop(0)

    async def _read(self, start: StartSource, model: str | None) -> None:
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
