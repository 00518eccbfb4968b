"""The store boundary: what every service holds, whichever store keeps the profile.

Both :class:`~acai_desktop.core.store.database.Store` (SQLite, this computer) and
:class:`~acai_desktop.core.store.postgres.database.PostgresStore` (a PostgreSQL server
several computers share) implement it; :func:`~acai_desktop.core.store.store_url.open_store`
opens either. The store's named functions (conversations, messages, memories and their
changes, jobs, provenance, documents, search) are functions over the ``db`` that
:meth:`run` and :meth:`read` hand them, written once for both stores (see
``store/dialect.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class MemoryStore(Protocol):
    #: ``"sqlite"`` or ``"postgresql"``: the engine's name (its connection's ``db.dialect``
    #: says how it differs, store/dialect.py).
    dialect: str
    #: Where the store is: a file path, or the server's URL without its password.
    path: Path | str

    async def run(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """``fn(db, *args, **kwargs)`` on the writer's thread; writes go in ``db.atomic()``."""
        ...

    def submit(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        """Like :meth:`run`, queued at once; the future is returned."""
        ...

    async def read(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """``fn(db, ...)`` in one read transaction on the reader's thread (reads only)."""
        ...

    def submit_read(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        """Like :meth:`read`, queued at once; the future is returned."""
        ...

    async def close(self) -> None: ...
