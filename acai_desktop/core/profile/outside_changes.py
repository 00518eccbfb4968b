"""Seeing what another process of the app wrote to the profile.

The MCP server runs beside the window on the same profile, and a command-line import
may too. Their writes are ordinary transactions (WAL, ``BEGIN IMMEDIATE``), so the
database is always right; what must follow is this process's picture of it: the vector
indexes (memories, recalled messages) and, through events, the window's panel, its
suggestions and its conversation list. :meth:`OutsideChanges.check` reads what changed
(nothing, at the cost of one pragma, when no other connection committed) and publishes
it as the app's own writes are published; :meth:`run` checks every few seconds (the
window), and the MCP server checks before each request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from acai_desktop.core import events as ev
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.profile.server_check import is_store_lost
from acai_desktop.core.store.memory_changes import MemoryChange
from acai_desktop.core.store.outside_writes import Cursors, current_cursors, read_outside_writes

log = logging.getLogger(__name__)
#: How often the window looks for writes of another process.
CHECK_SECONDS = 2.0
#: More memories than this written outside between two checks are told as one bulk
#: change (the window reloads its list) rather than memory by memory.
BULK_CHANGES = 200


class OutsideChanges:
    def __init__(
        self,
        memories: MemoryService,
        events: EventBus,
        wake_runner: Callable[[], None] | None = None,
    ) -> None:
        self.memories = memories
        self.store = memories.store
        self.events = events
        #: Jobs may have been queued or resumed (``import``, ``import resume``): the job
        #: runner looks at once instead of at its next idle poll.
        self._wake_runner = wake_runner
        self._cursors: Cursors | None = None
        #: Set once :meth:`run` follows the store: what is written from then on reaches
        #: this process (on PostgreSQL: it listens).
        self.following = asyncio.Event()

    async def start(self) -> None:
        """From now on: what is there already is known."""
        self._cursors = await self.store.run(current_cursors)

    async def check(self) -> bool:
        """Publish what another process wrote since the last check; whether it wrote."""
        if self._cursors is None:
            await self.start()
            return False
        embedder = self.memories.embedder
        cursors, writes = await self.store.run(
            read_outside_writes, self._cursors, embedder.name, embedder.dimensions
        )
        self._cursors = cursors
        if writes is None:
            return False
        if writes.message_vectors is not None:
            for message_id, vector in zip(*writes.message_vectors, strict=True):
                self.memories.episodes.index.upsert(int(message_id), vector)
        if writes.added or writes.changed:
            change = MemoryChange(added=writes.added, changed=writes.changed)
            if len(change.touched) > BULK_CHANGES:
                await self.memories.publish_in_bulk(change)
            else:
                await self.memories.publish(change)
        for suggestion in writes.suggestions:
            self.events.emit(ev.SuggestionsChanged(suggestion))
        for conversation in writes.conversations:
            self.events.emit(ev.ConversationChanged(conversation))
        if self._wake_runner is not None:
            self._wake_runner()
        return True

    async def run(self, seconds: float = CHECK_SECONDS) -> None:
        """Check every ``seconds`` until cancelled; a busy database is tried next time.
        On a PostgreSQL store, check when the server says another connection committed
        instead (LISTEN/NOTIFY: no polling), and ``seconds`` is the pause before
        listening again after the connection was lost."""
        if getattr(self.store, "dialect", "sqlite") == "postgresql":
            await self._follow_notices(seconds)
            return
        while True:
            try:
                await self.check()
                self.following.set()
            except AcaiError as error:
                log.info("could not read other processes' writes now: %s", error)
            await asyncio.sleep(seconds)

    async def _follow_notices(self, pause: float) -> None:
        first = True
        while True:
            try:
                # Closed here, on the loop, when reading what changed fails: left to the
                # garbage collector, the generator closes its connection outside any
                # loop ("async generator ignored GeneratorExit").
                async with contextlib.aclosing(self.store.changes()) as changes:
                    async for table in changes:
                        if table == "" and first:
                            # Listening from now on. What is there was loaded at
                            # start-up, and reading by id cursors can't tell this
                            # process's own writes since then from others': start here.
                            await self.start()
                            first = False
                        else:
                            # A notice, or listening again after a lost connection: read
                            # what was written meanwhile (our own writes come back too,
                            # and publishing them again changes nothing).
                            await self.check()
                        self.following.set()
            except AcaiError as error:
                log.info("not following other computers' writes now: %s", error)
                if is_store_lost(error):  # the window reconnects, with its banner
                    self.events.emit(ev.StoreLost(str(error)))
            await asyncio.sleep(pause)
