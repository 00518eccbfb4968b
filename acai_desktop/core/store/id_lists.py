"""Lists of ids bound into ``IN (…)``, written in few distinct statement texts.

SQLite prepares a statement per SQL text, and the sqlite3 module caches the prepared
ones by their text. A list of ``n`` ids written as ``n`` marks makes a new text for
every length, so a search's statements by id (a few dozen candidates' facts, the top
``k``'s records) were prepared afresh whenever a length came up for the first time:
the messages' facts, whose neighbours' subqueries make a long plan, took 0.33 ms
prepared against 0.09 ms cached, and a tenth of the benchmark's searches met a new
length. The marks are rounded up to a power of two and the list padded with its own
last id: ``x IN (a, b, b)`` is ``x IN (a, b)`` — a membership test, the same rows —
so each statement has a handful of texts, all soon in the cache.
"""

from __future__ import annotations

from collections.abc import Iterable


def id_marks(ids: Iterable[int]) -> tuple[str, list[int]]:
    """``("?,?,…", values)`` for ``ids`` (at least one): the marks rounded up to a power
    of two, the values padded with the last id."""
    values = [int(i) for i in ids]
    if not values:
        raise ValueError("an IN list needs at least one id")
    size = 1 << (len(values) - 1).bit_length()
    values += [values[-1]] * (size - len(values))
    return ",".join("?" * size), values
