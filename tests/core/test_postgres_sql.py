"""The store functions' SQL on PostgreSQL (postgres/database.py)."""

from __future__ import annotations

from acai_desktop.core.store.postgres.database import placeholders, redacted
from acai_desktop.core.store.postgres.full_text import statistics_in, terms_of


def test_parameters_become_psycopg_placeholders_but_not_inside_quoted_text():
    assert (
        placeholders("SELECT 'a?b', '50%' FROM t WHERE x = ? AND y LIKE '%?'")
        == "SELECT 'a?b', '50%%' FROM t WHERE x = %s AND y LIKE '%%?'"
    )
    assert placeholders("SELECT 1 WHERE a = ?1 OR b = ?1 OR c = '?1'") == (
        "SELECT 1 WHERE a = %(p1)s OR b = %(p1)s OR c = '?1'"
    )


def test_nothing_but_the_placeholders_is_rewritten():
    """SQLite's idioms reach PostgreSQL as written (and fail there): the store's SQL
    is what both engines speak, the rest is named in store/dialect.py."""
    for sql in (
        "SELECT 1 FROM t WHERE +t.status = 'a' LIMIT -1",
        "UPDATE m SET selected = (id IS 1) WHERE parent_id IS 2",
        "INSERT OR IGNORE INTO s (a, b) VALUES (1, 2)",
        "SELECT julianday('now'), group_concat(x), max(a, b) FROM t",
    ):
        assert placeholders(sql) == sql


def test_fts5_match_expressions_become_terms_and_a_tsquery_operator():
    assert terms_of('"tea" OR "coffee"') == (["tea", "coffee"], " | ")
    assert terms_of('"tea" AND "green"') == (["tea", "green"], " & ")
    assert terms_of('"say ""and"""') == (['say "and"'], " | ")
    assert terms_of("gamma") == (["gamma"], " | ")


def test_a_password_never_shows_in_a_store_address():
    assert (
        redacted("postgresql://me:secret@db.example/acai") == "postgresql://me:***@db.example/acai"
    )


class _Rows:
    """A connection that answers every statement with the same rows and counts them."""

    def __init__(self, rows: list[tuple]) -> None:
        self.rows, self.statements = rows, []

    def execute(self, sql: str, params=()):
        self.statements.append(sql)
        return self

    def fetchall(self) -> list[tuple]:
        return self.rows


def test_bm25_reads_the_table_size_and_the_word_counts_in_one_snapshot():
    # Apart, another process's rows committed between the two reads made a word's count
    # exceed the table's size (the two-process store soak failed "math domain error").
    rows = [(0, 0, "", 10, 40), (1, 1, "teapot", 3, 0), (2, 1, "kiln", 12, 0)]
    db = _Rows([("memories", *row) for row in rows])
    found = statistics_in(db, ["teapot", "kiln"], ["memories_fts"])["memories_fts"]
    assert len(db.statements) == 1
    assert found.words == [["teapot"], ["kiln"]] and found.rows == 10 and found.tokens == 40
    assert found.term_documents(0) == 3


def test_a_deadlock_or_serialisation_failure_is_busy_and_worth_trying_again():
    """The victim's transaction was rolled back whole (issue 39 G1): an answer's final
    save tries again, a message not saved says so, never a raw psycopg error."""
    import psycopg

    from acai_desktop.core.store.database import DatabaseBusyError
    from acai_desktop.core.store.postgres.database import translate_postgres_error

    url = "postgresql://me:secret@db.example/acai"
    for error in (psycopg.errors.DeadlockDetected(), psycopg.errors.SerializationFailure()):
        translated = translate_postgres_error(error, url)
        assert isinstance(translated, DatabaseBusyError)
        assert "nothing of this change was written" in str(translated)
        assert "secret" not in str(translated)
    assert translate_postgres_error(psycopg.errors.UniqueViolation(), url) is None  # our bug
