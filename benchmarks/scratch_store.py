"""Where an evaluation or a benchmark keeps a throwaway profile's store: a SQLite file in
a temp dir, or, given a PostgreSQL server's URL (``--store postgresql://…``), a database
of its own created on that server for the run and dropped after it (the URL's user needs
the CREATEDB privilege). The same measurement then runs on either store."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from acai_desktop.core.store.store_url import is_server_url

_names = itertools.count(1)


@contextlib.contextmanager
def scratch_store(server: str | None, directory: Path) -> Iterator[Path | str]:
    """A fresh, empty store location: ``directory``'s ``acai.sqlite3`` without a
    ``server``, else a new database on it (dropped at the end, whatever happens)."""
    if server is None:
        yield directory / "acai.sqlite3"
        return
    if not is_server_url(server):
        raise ValueError(f"not a PostgreSQL URL: {server!r}")
    import psycopg

    name = f"acai_scratch_{os.getpid()}_{next(_names)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
