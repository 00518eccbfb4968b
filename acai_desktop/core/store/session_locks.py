"""Which computer is working on a row, on PostgreSQL (docs/architecture.md, "Jobs across
computers" and "Answers across computers").

Several computers share one database, so "still running" cannot mean "this process
started it and has not finished": a computer that starts must tell another live
computer's work (leave it) from a dead one's (put it back). While a process works on a
row it holds a session advisory lock keyed ``(namespace, row id)``; the server releases
it when the process's session ends, however it ends (``store/dialect.py``). SQLite needs
none of this: one process holds the profile (core/profile/lock.py), so its start owns
every row.
"""

from __future__ import annotations

from collections.abc import Collection


def hold(db, namespace: int, row_id: int) -> None:
    """This process works on ``row_id`` (once: holding it again does not stack)."""
    db.dialect.hold(db, namespace, row_id)


def release(db, namespace: int, row_ids: Collection[int]) -> None:
    """This process is done with ``row_ids`` (those it holds; the others are left)."""
    db.dialect.release(db, namespace, row_ids)


def unheld(db, namespace: int, row_ids: Collection[int]) -> list[int]:
    """The rows among ``row_ids`` no live process works on (all of them on SQLite)."""
    return db.dialect.unheld(db, namespace, row_ids)
