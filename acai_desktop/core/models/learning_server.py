"""Background learning on the built-in model gets a server process of its own.

llama.cpp reads a prompt in one piece and can't be interrupted: with one server, a turn
sent while learning's long prompt was being read waited for the rest of that read
(8.7 and 10.6 s before the first word in ``bench answers``), and cancelling the HTTP
request did not free the server. So the app starts a second LocalModelServer on the same
GGUF file for triage, extraction, summaries and titles. The weights are mmapped, so both
processes share their pages; the second keeps no RAM cache of prompt states (see
LEARNING_PROMPT_CACHE_BYTES). A turn then never queues behind learning.

Learning must not take the CPU from the answer either:

- the learning server runs at the lowest priority (``--background``: SCHED_IDLE on
  Linux, nice 19 on macOS, IDLE_PRIORITY_CLASS on Windows), so the chat's server wins
  every CPU it wants, and the rest of the machine does too;
- on Linux it is also suspended (SIGSTOP) from the moment a turn starts until its stream
  ends (:class:`PauseDuringTurns`), so it doesn't share caches and memory bandwidth with
  the answer either. A suspended server can't be left behind: the kernel kills it when
  the app dies (PR_SET_PDEATHSIG), and stopping it resumes it first. One pause lasts at
  most ``TURN_PAUSE_LIMIT_S`` (a turn may stream for minutes on a big model; the low
  priority still keeps learning behind it then), and learning's client allows
  ``PAUSE_ALLOWANCE_S`` more than the settings for each call, so its timeouts don't
  fire because of pauses: a learning request waits, it is not cancelled or redone.

External servers (Ollama, LM Studio, a llama.cpp server the user runs) are not ours to
start twice: there learning still steps aside for turns (JobRunner.yield_to_turns).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.call_limits import ClientTimeouts
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.local_server import LocalModelServer
from acai_desktop.core.models.settings import ModelSettings

log = logging.getLogger(__name__)

#: The learning server keeps no saved prompt states. Each state llama-cpp-python's RAM
#: cache keeps holds a copy of the logits buffer, about 100 MB with the bundled model
#: (now counted: local_server_process.count_whole_states; uncounted, a 64 MB cache grew
#: the learning server to 1.7 GB in ``bench answers``). Without a cache, a
#: learning call whose prompt starts like the last one still reuses that (the model's
#: context keeps it), and a triage after an extraction reads its instructions again, in
#: the background, which nobody waits for.
LEARNING_PROMPT_CACHE_BYTES = 0
#: The longest one turn keeps the learning server stopped.
TURN_PAUSE_LIMIT_S = 120.0
#: Added to every timeout and deadline of learning's client: time a request may spend
#: waiting on a stopped server (five full pauses) without failing for it.
PAUSE_ALLOWANCE_S = 5 * TURN_PAUSE_LIMIT_S


def learning_server_like(chat_server: LocalModelServer, log_path=None) -> LocalModelServer:
    """A background server on the chat server's model, with the same context size (a
    summary folds up to half the chat's history room; an extraction reads up to 4,000
    characters of a message) and no cache of prompt states."""
    return LocalModelServer(
        chat_server.model_path,
        n_ctx=chat_server.n_ctx,
        n_threads=chat_server.n_threads,
        log_path=log_path,
        background=True,
        prompt_cache_bytes=LEARNING_PROMPT_CACHE_BYTES,
        models_dir=chat_server.models_dir,  # the same copy: both map one file
    )


def learning_client(settings: ModelSettings, server: LocalModelServer) -> ModelClient:
    """Learning's client of its server: the settings' timeouts and deadlines, each with
    room for the pauses (nobody waits for a learning call)."""
    patient = settings.model_copy(
        update={
            "read_timeout_seconds": settings.read_timeout_seconds + PAUSE_ALLOWANCE_S,
            "first_token_timeout_seconds": settings.resolved_first_token_timeout()
            + PAUSE_ALLOWANCE_S,
            "answer_timeout_seconds": settings.resolved_answer_timeout() + PAUSE_ALLOWANCE_S,
            "reply_timeout_seconds": settings.reply_timeout_seconds + PAUSE_ALLOWANCE_S,
        }
    )
    return ModelClient(
        patient,
        base_url=server.base_url,
        api_key=server.api_key,
        unreachable_reason=server.unavailable_reason,
        timeouts=ClientTimeouts(read=patient.read_timeout_seconds),
    )


class PauseDuringTurns:
    """Keeps ``server`` suspended while a turn is answered (TurnStarted to TurnEnded),
    for at most ``limit_s`` a turn."""

    def __init__(
        self, server: LocalModelServer, events: EventBus, *, limit_s: float = TURN_PAUSE_LIMIT_S
    ) -> None:
        self.server = server
        self.limit_s = limit_s
        self._turns: set[int] = set()
        self._limit: asyncio.TimerHandle | None = None
        self._unsubscribers: list[Callable[[], None]] = [
            events.subscribe(ev.TurnStarted, self._on_turn_started),
            events.subscribe(ev.TurnEnded, self._on_turn_ended),
        ]

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        self._turns.add(event.answer_id)
        if self.server.suspend():
            log.debug("learning server paused for answer %s", event.answer_id)
            self._limit = asyncio.get_running_loop().call_later(self.limit_s, self._resume)

    def _on_turn_ended(self, event: ev.TurnEnded) -> None:
        self._turns.discard(event.answer_id)
        if not self._turns:
            self._resume()

    def _resume(self) -> None:
        if self._limit is not None:
            self._limit.cancel()
            self._limit = None
        self.server.resume()

    def close(self) -> None:
        while self._unsubscribers:
            self._unsubscribers.pop()()
        self._turns.clear()
        with contextlib.suppress(Exception):
            self._resume()
