"""Checks of episodic recall's full-text index (``messages_fts``) against its view."""

from __future__ import annotations

from acai_desktop.core.store.connection import Database


def assert_index_is_the_view(db: Database) -> None:
    """FTS5 checks its index against the view's rows, word for word (rank 1: against
    the external content too), and the whole database is sound."""
    db.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    indexed = db.execute("SELECT count(*) FROM messages_fts_docsize").fetchone()[0]
    assert indexed == db.execute("SELECT count(*) FROM message_recall_rows").fetchone()[0]
