""" "Copy my local memory to the server": a profile's SQLite file, row for row, into the
PostgreSQL database it moves to (issue 27 item 2, docs/architecture.md "Two stores").

- **Every table both stores have**, with the columns both have (the server's generated
  full-text columns are its own), parents before children (SQLite's foreign keys say
  which). Tables one store derives from others (the server's ``message_recall``) are
  made by its triggers as the rows arrive. Ids are kept, so every link stays whole; the
  server's identity sequences then continue after the largest id.
- **Batches of** :data:`BATCH_ROWS`, each committed on its own with ``ON CONFLICT DO
  NOTHING``: a copy cut off midway (the network, a quit) keeps what it wrote, and
  running it again adds only what is missing — twice adds nothing.
- **A link to a later row** (a memory superseded by a newer one) is written in a second
  pass, once the row it points at is there; the server checks every link as it goes.
- **Verified by counts**: at the end, for every table, the local rows and how many of
  them (by primary key) are on the server. A server that already holds a *different*
  memory (the same ids with other creation times) is refused before anything is
  written: the copy never mixes two people's memories.

The local file is read through a read-only connection: the window may have it open.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError, StoreError, StoreUnavailableError
from acai_desktop.core.profile.store_choice import ServerAddress

BATCH_ROWS = 500
#: Tables the server derives from others by triggers (never copied as rows).
DERIVED_ON_SERVER = frozenset({"message_recall", "acai_migrations"})
#: Tables whose (id, created_at) tell one memory from another.
IDENTIFYING_TABLES = ("conversations", "memories")


@dataclass(frozen=True)
class CopyProgress:
    table: str
    rows_done: int
    rows_total: int


@dataclass(frozen=True)
class TableCount:
    table: str
    local: int
    on_server: int

    @property
    def complete(self) -> bool:
        return self.on_server == self.local


@dataclass(frozen=True)
class CopyReport:
    tables: tuple[TableCount, ...]
    #: Rows this run wrote (0 for a run after a complete one).
    rows_added: int

    @property
    def complete(self) -> bool:
        return all(count.complete for count in self.tables)

    def count_of(self, table: str) -> TableCount:
        return next(count for count in self.tables if count.table == table)

    def summary(self) -> str:
        shown = [c for c in self.tables if c.local or c.on_server]
        lines = [f"{c.table}: {c.on_server} of {c.local} on the server" for c in shown]
        verdict = (
            "Every row of your local memory is on the server."
            if self.complete
            else "Some rows are not on the server yet: run the copy again to finish it."
        )
        return "\n".join([*lines, verdict])


async def copy_local_memory(
    database_path: Path,
    server: ServerAddress,
    password: str | None,
    on_progress: Callable[[CopyProgress], None] | None = None,
) -> CopyReport:
    """Copy the SQLite file at ``database_path`` into ``server``. A server that can't be
    used (unreachable, a wrong password, a schema older or newer than this version's:
    updating a shared schema is the user's call) is refused with its reason; then both
    are brought to this version's schema."""
    from acai_desktop.core.profile.server_check import check_server
    from acai_desktop.core.store.database import Store
    from acai_desktop.core.store.store_url import open_store

    if not Path(database_path).is_file():
        raise InvalidInputError(f"There is no local memory to copy at {database_path}.")
    problem = await asyncio.to_thread(check_server, server, password)
    if problem is not None:
        raise StoreUnavailableError(problem)
    server_url = server.url(password=password)
    for opened in (Store.open(database_path), open_store(server_url)):
        store = await opened  # migrated to this version's schema, then closed
        await store.close()
    return await asyncio.to_thread(_copy, Path(database_path), server_url, on_progress)


def _copy(
    database_path: Path, server_url: str, on_progress: Callable[[CopyProgress], None] | None
) -> CopyReport:
    import psycopg

    from acai_desktop.core.store.postgres.database import read_as_sqlite

    local = sqlite3.connect(f"{database_path.as_uri()}?mode=ro", uri=True)
    try:
        with psycopg.connect(server_url, autocommit=True) as server:
            read_as_sqlite(server)  # its times read as the file's text
            plan = _plan(local, server)
            _refuse_another_memory(local, server, plan)
            total = sum(table.rows for table in plan)
            done = added = 0
            for table in plan:
                for batch in _batches(local, table):
                    added += _insert(server, table, batch)
                    done += len(batch)
                    if on_progress is not None:
                        on_progress(CopyProgress(table.name, done, total))
            for table in plan:
                _link_later_rows(local, server, table)
                _continue_ids(server, table)
            return CopyReport(tuple(_count(local, server, table) for table in plan), added)
    except psycopg.OperationalError as error:
        raise StoreError(
            "The copy stopped: the server can't be reached. What was copied stays there; "
            "run the copy again to finish it."
        ) from error
    finally:
        local.close()


@dataclass(frozen=True)
class _Table:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    #: Links to rows of the same table that may come later (written in a second pass).
    later_links: tuple[str, ...]
    rows: int
    #: Columns that are SQLite's 0/1 flags and the server's booleans.
    flags: tuple[str, ...] = ()


def _plan(local: sqlite3.Connection, server) -> list[_Table]:
    """The tables to copy, parents first, with the columns both stores have."""
    local_tables = [
        name
        for (name,) in local.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
            "'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    server_tables = {
        name
        for (name,) in server.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        )
    }
    names = [n for n in local_tables if n in server_tables and n not in DERIVED_ON_SERVER]
    parents = {
        name: {row[2] for row in local.execute(f'PRAGMA foreign_key_list("{name}")')} - {name}
        for name in names
    }
    plan = []
    for name in _parents_first(names, parents):
        local_columns = [row[1] for row in local.execute(f'PRAGMA table_info("{name}")')]
        server_columns = dict(
            server.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE "
                "table_schema = current_schema() AND table_name = %s AND is_generated = 'NEVER'",
                (name,),
            ).fetchall()
        )
        columns = tuple(c for c in local_columns if c in server_columns)
        flags = tuple(c for c in columns if server_columns[c] == "boolean")
        key = _primary_key(server, name)
        self_links = [
            row[3]
            for row in local.execute(f'PRAGMA foreign_key_list("{name}")')
            if row[2] == name and row[3] in columns
        ]
        later = tuple(
            column
            for column in self_links
            if key == ("id",)
            and local.execute(f'SELECT 1 FROM "{name}" WHERE "{column}" > id LIMIT 1').fetchone()
        )
        rows = local.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
        plan.append(_Table(name, columns, key, later, rows, flags))
    return plan


def _parents_first(names: list[str], parents: dict[str, set[str]]) -> list[str]:
    ordered: list[str] = []
    placed: set[str] = set()

    def place(name: str, path: tuple[str, ...] = ()) -> None:
        if name in placed or name in path:
            return
        for parent in sorted(parents.get(name, ())):
            if parent in parents:
                place(parent, (*path, name))
        placed.add(name)
        ordered.append(name)

    for name in names:
        place(name)
    return ordered


def _primary_key(server, table: str) -> tuple[str, ...]:
    rows = server.execute(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
        "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
        "ORDER BY array_position(i.indkey, a.attnum)",
        (table,),
    ).fetchall()
    if not rows:
        raise StoreError(f"The server's table {table} has no primary key; the copy needs one.")
    return tuple(name for (name,) in rows)


def _batches(local: sqlite3.Connection, table: _Table) -> Iterable[list[tuple]]:
    columns = ", ".join(f'"{c}"' for c in table.columns)
    order = ", ".join(f'"{c}"' for c in table.key)
    cursor = local.execute(f'SELECT {columns} FROM "{table.name}" ORDER BY {order}')
    later = [table.columns.index(column) for column in table.later_links]
    flags = [table.columns.index(column) for column in table.flags]
    while batch := cursor.fetchmany(BATCH_ROWS):
        if later or flags:
            batch = [
                tuple(
                    None
                    if i in later
                    else bool(value)
                    if i in flags and value is not None
                    else value
                    for i, value in enumerate(row)
                )
                for row in batch
            ]
        yield batch


def _insert(server, table: _Table, batch: list[tuple]) -> int:
    """One batch in one transaction; rows already there are left as they are."""
    columns = ", ".join(f'"{c}"' for c in table.columns)
    marks = ", ".join(["%s"] * len(table.columns))
    statement = f'INSERT INTO "{table.name}" ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING'
    with server.transaction(), server.cursor() as cursor:
        cursor.executemany(statement, batch)  # pipelined: one round trip per batch
        return max(cursor.rowcount, 0)


def _link_later_rows(local: sqlite3.Connection, server, table: _Table) -> None:
    for column in table.later_links:
        rows = local.execute(
            f'SELECT "{column}", id FROM "{table.name}" WHERE "{column}" IS NOT NULL'
        ).fetchall()
        with server.transaction(), server.cursor() as cursor:
            cursor.executemany(
                f'UPDATE "{table.name}" SET "{column}" = %s '
                f'WHERE id = %s AND "{column}" IS DISTINCT FROM %s',
                [(target, row_id, target) for target, row_id in rows],
            )


def _continue_ids(server, table: _Table) -> None:
    """New rows made on the server get ids after the copied ones."""
    if table.key != ("id",):
        return
    sequence = server.execute("SELECT pg_get_serial_sequence(%s, 'id')", (table.name,)).fetchone()[
        0
    ]
    if sequence is not None:
        with server.transaction():
            server.execute(
                f'SELECT setval(%s, GREATEST((SELECT max(id) FROM "{table.name}"), 1))',
                (sequence,),
            )


def _refuse_another_memory(local: sqlite3.Connection, server, plan: list[_Table]) -> None:
    for table in plan:
        if table.name not in IDENTIFYING_TABLES or "created_at" not in table.columns:
            continue
        mine = dict(local.execute(f'SELECT id, created_at FROM "{table.name}"'))
        theirs = server.execute(
            f'SELECT id, created_at FROM "{table.name}" WHERE id = ANY(%s)', (list(mine),)
        )
        for row_id, created_at in theirs:
            if _instant(created_at) != _instant(mine[row_id]):
                raise InvalidInputError(
                    f"The server's database already holds a different memory (its "
                    f"{table.name} row {row_id} is not this computer's). Copy into an empty "
                    "database, or use the server's memory as it is."
                )


def _instant(time: str) -> datetime | str:
    """A stored time as the moment it names (the server keeps a timestamp: its text is
    not the file's), or as it is when it names none."""
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        return time
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _count(local: sqlite3.Connection, server, table: _Table) -> TableCount:
    columns = ", ".join(f'"{c}"' for c in table.key)
    mine = local.execute(f'SELECT {columns} FROM "{table.name}"').fetchall()
    theirs = set(server.execute(f'SELECT {columns} FROM "{table.name}"').fetchall())
    return TableCount(table.name, len(mine), sum(1 for key in mine if tuple(key) in theirs))
