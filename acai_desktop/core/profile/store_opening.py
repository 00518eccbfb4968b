"""Open a profile's store where the profile says it lives (core/profile/store_choice.py): the
SQLite file, or the chosen PostgreSQL server — never the one in place of the other.

A server that can't be used is reported as
:class:`~acai_desktop.core.errors.StoreUnavailableError`, with the reason sorted by
:func:`~acai_desktop.core.profile.server_check.check_server` (one clear line, its next step),
instead of libpq's own multi-line text; so is a schema this version should not open.
"""

from __future__ import annotations

import asyncio

from acai_desktop.core.errors import StoreError, StoreUnavailableError
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store.interface import MemoryStore
from acai_desktop.core.store.store_url import open_store


async def open_profile_store(profile: Profile, *, update_schema: bool = False) -> MemoryStore:
    """The profile's store. A server is checked first: one that can't be used, or whose
    schema is newer than this version's, or older (unless ``update_schema``: the user
    agreed, in the window), is refused with its reason — opening would migrate a schema
    other computers may still need, or write to one this version doesn't know."""
    if profile.server is None:
        return await open_store(profile.database_path)
    from acai_desktop.core.profile.server_check import ProblemKind, check_server
    from acai_desktop.core.profile.store_choice import server_password

    password = await asyncio.to_thread(server_password, profile)  # the keyring may be slow
    problem = await asyncio.to_thread(check_server, profile.server, password)
    if problem is not None and not (update_schema and problem.kind is ProblemKind.OLDER_SCHEMA):
        raise StoreUnavailableError(problem)
    try:
        return await open_store(profile.server.url(password=password))
    except StoreError as error:
        problem = await asyncio.to_thread(check_server, profile.server, password)
        if problem is None or (update_schema and problem.kind is ProblemKind.OLDER_SCHEMA):
            raise
        raise StoreUnavailableError(problem) from error
