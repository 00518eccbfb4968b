"""Open a profile's store where the profile says it lives (core/store_choice.py): the
SQLite file, or the chosen PostgreSQL server — never the one in place of the other.

A server that can't be used is reported as
:class:`~acai_desktop.core.errors.StoreUnavailableError`, with the reason sorted by
:func:`~acai_desktop.core.server_check.check_server` (one clear line, its next step),
instead of libpq's own multi-line text.
"""

from __future__ import annotations

import asyncio

from acai_desktop.core.errors import StoreError, StoreUnavailableError
from acai_desktop.core.profile import Profile
from acai_desktop.core.store.interface import MemoryStore
from acai_desktop.core.store.store_url import open_store


async def open_profile_store(profile: Profile) -> MemoryStore:
    if profile.server is None:
        return await open_store(profile.database_path)
    location = await asyncio.to_thread(profile.store_location)  # the keyring may be slow
    try:
        return await open_store(location)
    except StoreError as error:
        from acai_desktop.core.server_check import check_server
        from acai_desktop.core.store_choice import server_password

        password = await asyncio.to_thread(server_password, profile)
        problem = await asyncio.to_thread(check_server, profile.server, password)
        if problem is None:
            raise
        raise StoreUnavailableError(problem) from error
