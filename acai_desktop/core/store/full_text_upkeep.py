"""Merging the full-text indexes' segments, a little at a time.

FTS5 writes every transaction as a new segment and merges them only when enough pile
up on one level (its ``automerge``), so a profile that grew by many small writes, or by
an import, keeps a dozen segments, and every MATCH reads each of them: at 10,000 items
a search spent 0.3 ms more in SQL than with one segment. FTS5's ``optimize`` merges
them all in one statement, which at 100,000 items holds the database thread for a
noticeable moment; the ``merge`` command with a negative page count does the same work
in bounded steps (each at most that many pages), so other database work goes between
them.
"""

from __future__ import annotations

from acai_desktop.core.store.connection import Database

FULL_TEXT_TABLES = ("memories_fts", "messages_fts", "chunks_fts")
MERGE_PAGES = 256


def merge_step(db: Database, table: str, pages: int = MERGE_PAGES) -> bool:
    """One bounded merge of ``table``'s segments into one; False once there was nothing
    left to merge (PostgreSQL: its indexes and statistics tidied, ``postgres/full_text.py``)."""
    if table not in FULL_TEXT_TABLES:
        raise ValueError(f"not a full-text table: {table!r}")
    return db.dialect.full_text.merge_step(db, table, pages)


def segment_count(db: Database, table: str) -> int:
    """How many segments ``table``'s index holds (for tests and the benchmark)."""
    if table not in FULL_TEXT_TABLES:
        raise ValueError(f"not a full-text table: {table!r}")
    # The structure record lists every segment; fts5_decode is not in every build,
    # so the count comes from the segment rows of the %_data table: one per segment
    # (plus their leaves), keyed by segment id in the rowid's high bits.
    rows = db.execute(f"SELECT DISTINCT (id >> 37) FROM {table}_data WHERE id >> 37 > 0")
    return len(rows.fetchall())
