"""The store functions' ``db`` on either store, migrated, for tests that call them
directly (no store thread): a SQLite file or a PostgreSQL database (``store_location``)."""

from __future__ import annotations

from pathlib import Path


def store_db(location: Path | str):
    from acai_desktop.core.store.store_url import is_server_url

    if is_server_url(location):
        from acai_desktop.core.store.migrations import migrations
        from acai_desktop.core.store.postgres.database import PostgresDatabase

        db = PostgresDatabase(str(location))
        migrations.apply(db)
        return db
    from acai_desktop.core.store.database import connect

    return connect(location)
