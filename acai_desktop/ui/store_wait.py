"""The window's wait for the PostgreSQL server that holds the memory (issue 27 item 4,
docs/architecture.md "Choosing the store, failing honestly").

Before the profile opens, :meth:`StoreWait.until_ready` checks the server
(:func:`~acai_desktop.core.profile.server_check.check_server`). While it can't be used, the
store banner says why and what to do, and the wait lasts until the next attempt — on a
:class:`~acai_desktop.core.profile.reconnect.Backoff` timer for a server that did not answer —
or until the user acts (the banner's button, a new choice in Settings). The window stays
usable meanwhile: what is typed stays in the composer. Never the local file instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from acai_desktop.core.profile.reconnect import Backoff

if TYPE_CHECKING:
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.core.profile.server_check import ServerProblem
    from acai_desktop.ui.main_window import MainWindow

STORE_WAITING = "Waiting for the PostgreSQL server that holds your memory…"
UPDATE_SCHEMA = "Update the server's memory"
KEEPS_TRYING = "ACAI keeps trying by itself, and what you type stays in the message box."


class StoreWait:
    def __init__(
        self, window: MainWindow, on_waiting: Callable[[], None], backoff: Backoff | None = None
    ) -> None:
        self.window = window
        #: Called each time a wait begins (the smoke tests' quit timer counts from it).
        self._on_waiting = on_waiting
        #: Why the server can't be used now (the banner's reason), or None.
        self.problem: ServerProblem | None = None
        self.backoff = backoff or Backoff()
        self._retry = asyncio.Event()
        #: The user agreed to update an older schema on the server.
        self.schema_update_allowed = False

    async def until_ready(self, profile: Callable[[], Profile]) -> None:
        """Return once ``profile()``'s store can be opened (at once for this computer's).
        ``profile`` is asked again after each wait: Settings may have chosen another."""
        from acai_desktop.core.profile.server_check import ProblemKind, check_server
        from acai_desktop.core.profile.store_choice import server_password

        while (server := profile().server) is not None:
            password = await asyncio.to_thread(server_password, profile())
            problem = await asyncio.to_thread(check_server, server, password)
            if problem is None or (
                problem.kind is ProblemKind.OLDER_SCHEMA and self.schema_update_allowed
            ):
                break
            await self.wait(problem)
        self.problem = None
        self.window.show_store_problem(None)

    async def wait(self, problem: ServerProblem) -> None:
        """Show ``problem`` and wait for the next attempt or for the user."""
        from acai_desktop.core.profile.server_check import ProblemKind

        self.problem = problem
        older = problem.kind is ProblemKind.OLDER_SCHEMA
        text = problem.message()
        if problem.clears_by_itself:  # what only the window does, so the CLI never says it
            text += f" {KEEPS_TRYING}"
        self.window.show_store_problem(text, retry_text=UPDATE_SCHEMA if older else "Try now")
        self.window.show_status(STORE_WAITING)
        self._on_waiting()
        self._retry.clear()
        delay = self.backoff.next_delay() if problem.clears_by_itself else None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._retry.wait(), delay)

    def opened(self) -> None:
        """The store opened: the next outage starts from the first, short wait."""
        self.backoff.reset()

    def retry(self) -> None:
        """The banner's button (for an older schema: the user agrees to update it), or a
        new store chosen: check again now."""
        from acai_desktop.core.profile.server_check import ProblemKind

        if self.problem is not None and self.problem.kind is ProblemKind.OLDER_SCHEMA:
            self.schema_update_allowed = True
        self.backoff.reset()
        self._retry.set()

    def new_store(self) -> None:
        """Another store was chosen: consent to update the last one's schema ends."""
        self.schema_update_allowed = False
        self.problem = None
        self.retry()
