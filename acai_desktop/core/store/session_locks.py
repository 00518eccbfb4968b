"""Which computer is working on a row, on PostgreSQL (docs/architecture.md, "Jobs across
computers" and "Answers across computers").

Several computers share one database, so "still running" cannot mean "this process
started it and has not finished": a computer that starts must tell another live
computer's work (leave it) from a dead one's (put it back). While a process works on a
row it holds a session advisory lock keyed ``(namespace, row id)``; the server releases
it when the process's session ends, however it ends. SQLite needs none of this: one
process holds the profile (core/profile/lock.py), so its start owns every row.
"""

from __future__ import annotations

from collections.abc import Collection

from acai_desktop.core.store.dialect import is_postgres

#: This session's hold on (namespace, id), as pg_locks shows a two-key advisory lock.
_HELD_HERE = (
    "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = ? "
    "AND objid::bigint = ? AND objsubid = 2 AND pid = pg_backend_pid()"
)


def hold(db, namespace: int, row_id: int) -> None:
    """This process works on ``row_id`` (once: holding it again does not stack)."""
    if is_postgres(db):
        db.execute(
            f"SELECT pg_advisory_lock(?, ?) WHERE NOT EXISTS ({_HELD_HERE})",
            [namespace, int(row_id), namespace, int(row_id)],
        )


def release(db, namespace: int, row_ids: Collection[int]) -> None:
    """This process is done with ``row_ids`` (those it holds; the others are left)."""
    if is_postgres(db):
        for row_id in row_ids:
            db.execute(
                f"SELECT pg_advisory_unlock(?, ?) FROM ({_HELD_HERE} LIMIT 1) AS held",
                [namespace, int(row_id), namespace, int(row_id)],
            )


def unheld(db, namespace: int, row_ids: Collection[int]) -> list[int]:
    """The rows among ``row_ids`` no live process works on (all of them on SQLite)."""
    if not is_postgres(db):
        return list(row_ids)
    free = []
    for row_id in row_ids:
        if db.execute("SELECT pg_try_advisory_lock(?, ?)", [namespace, int(row_id)]).fetchone()[0]:
            free.append(row_id)
            db.execute("SELECT pg_advisory_unlock(?, ?)", [namespace, int(row_id)])
    return free
