"""PostgreSQL's full text (issue 41 item 2): FTS5's words, FTS5's bm25() scores, and
BM25's statistics kept by triggers that stay right through inserts, edits and deletes,
from a new database and from one made before migration m018."""

from __future__ import annotations

import sqlite3
import threading

import psycopg
import pytest

from acai_desktop.core.store.full_text_upkeep import FULL_TEXT_TABLES, merge_step
from acai_desktop.core.store.migrations import M020_FLAGS, M020_TIMES, migrations
from acai_desktop.core.store.postgres import full_text
from acai_desktop.core.store.postgres.database import PostgresDatabase
from tests.support.released_postgres import postgres_database_at

TEXTS = [
    "Caroline’s café is well-known; she was running generously at 3.5 km",
    "Ünïcödé naïve façade, e-mail a@b.com, don't abc123 file_name",
    "Technology and mythology: the ideology of possibilities",
    "日本語のテキスト and Ἀθῆναι",
    "",
]
NOW = "2026-12-07T00:00:00Z"


def fts5_words(text: str) -> list[str]:
    """The words SQLite's index (porter unicode61 remove_diacritics 2) holds, in order."""
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE f USING fts5(a, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')")
    db.execute("INSERT INTO f (a) VALUES (?)", [text])
    return [row[0] for row in db.execute("SELECT term FROM v ORDER BY offset")]


@pytest.fixture
def pg_db(postgres_url):
    db = PostgresDatabase(postgres_url)
    migrations.apply(db)
    yield db
    db.close()


def counted(db, table: str) -> dict[str, tuple[int, int]]:
    """What the statistics must say of ``table``, counted from its rows."""
    rows, tokens = db.execute(
        f"SELECT count(*), coalesce(sum(search_length), 0) FROM {table}"
    ).fetchone()
    words = db.execute(
        f"SELECT e.lexeme, count(*) FROM {table} AS t, unnest(t.search_vector) AS e "
        "GROUP BY e.lexeme"
    ).fetchall()
    return {"": (rows, tokens), **{word: (count, 0) for word, count in words}}


def kept(db, table: str) -> dict[str, tuple[int, int]]:
    """What the statistics say of ``table``: the folded totals plus the changes."""
    rows = db.execute(
        "SELECT word, sum(documents), sum(tokens) FROM (SELECT word, documents, tokens "
        "FROM full_text_totals WHERE full_text = ? UNION ALL SELECT word, documents, tokens "
        "FROM full_text_changes WHERE full_text = ?) AS c GROUP BY word",
        [table, table],
    ).fetchall()
    return {word: (d, t) for word, d, t in rows if d or t or word == ""}


def add_memory(db, content: str, category: str | None = None) -> int:
    return db.execute(
        "INSERT INTO memories (kind, content, category, origin, created_at, updated_at) "
        "VALUES ('fact', ?, ?, 'user', ?, ?) RETURNING id",
        [content, category, NOW, NOW],
    ).fetchone()[0]


def add_message(db, conversation: int, content: str) -> int:
    return db.execute(
        "INSERT INTO messages (conversation_id, role, content, created_at) "
        "VALUES (?, 'user', ?, ?) RETURNING id",
        [conversation, content, NOW],
    ).fetchone()[0]


def fill(db) -> dict[str, list[int]]:
    """Rows in every full-text table: memories, recallable messages, document chunks."""
    memories = [add_memory(db, text, "Food" if i % 2 else None) for i, text in enumerate(TEXTS)]
    conversation = db.execute(
        "INSERT INTO conversations (created_at, updated_at) VALUES (?, ?) RETURNING id", [NOW, NOW]
    ).fetchone()[0]
    messages = [add_message(db, conversation, text or "ok") for text in TEXTS]
    document = db.execute(
        "INSERT INTO documents (path, name, kind, added_at) VALUES (?, 'a.md', 'md', ?) "
        "RETURNING id",
        [f"/{conversation}.md", NOW],
    ).fetchone()[0]
    chunks = [
        db.execute(
            "INSERT INTO chunks (document_id, ordinal, heading, content, token_count) "
            "VALUES (?, ?, 'Recipes', ?, 9) RETURNING id",
            [document, ordinal, text],
        ).fetchone()[0]
        for ordinal, text in enumerate(TEXTS)
    ]
    return {"memories": memories, "messages": messages, "chunks": chunks}


def change_some(db, ids: dict[str, list[int]]) -> None:
    """Edits and deletes in every table (a hidden message leaves the recall index and
    changes its neighbours' context)."""
    kiln = "UPDATE memories SET content = 'tea with the kiln maker' WHERE id = ?"
    db.execute(kiln, [ids["memories"][0]])
    db.execute("UPDATE memories SET category = 'Travel' WHERE id = ?", [ids["memories"][1]])
    db.execute("UPDATE memories SET importance = 0.9 WHERE id = ?", [ids["memories"][2]])
    db.execute("DELETE FROM memories WHERE id = ?", [ids["memories"][3]])
    db.execute("UPDATE messages SET content = 'a kiln, a kiln' WHERE id = ?", [ids["messages"][1]])
    db.execute("UPDATE messages SET hidden = TRUE WHERE id = ?", [ids["messages"][2]])
    db.execute("DELETE FROM messages WHERE id = ?", [ids["messages"][4]])
    db.execute("UPDATE chunks SET heading = 'Travel' WHERE id = ?", [ids["chunks"][0]])
    db.execute("DELETE FROM chunks WHERE id = ?", [ids["chunks"][1]])


TABLES = ("memories", "message_recall", "chunks")


def test_the_index_holds_fts5s_words(pg_db):
    for text in TEXTS:
        words = pg_db.execute("SELECT acai_fts_words(?)", [text]).fetchone()[0]
        assert words == fts5_words(text), text


def test_kept_statistics_stay_right_after_inserts_edits_and_deletes(pg_db):
    ids = fill(pg_db)
    for table in TABLES:
        assert kept(pg_db, table) == counted(pg_db, table), table
    change_some(pg_db, ids)
    for table in TABLES:
        assert kept(pg_db, table) == counted(pg_db, table), table
    pg_db.execute("SELECT acai_fold_full_text_changes()")
    assert pg_db.execute("SELECT count(*) FROM full_text_changes").fetchone()[0] == 0
    change_some(pg_db, fill(pg_db))
    for table in TABLES:
        assert kept(pg_db, table) == counted(pg_db, table), table
    found = full_text.statistics_in(pg_db, ["kiln", "Caroline's", "absent"], ["memories_fts"])[
        "memories_fts"
    ]
    assert found.words == [["kiln"], ["carolin", "s"], ["absent"]]
    assert found.rows == counted(pg_db, "memories")[""][0]
    assert found.term_documents(0) == 2 and found.term_documents(2) == 0


def test_bm25_scores_are_fts5s(pg_db):
    contents = [
        ("tea with the kiln maker in the kiln shed", "Hobby"),
        ("green tea every morning", "Food"),
        ("the kiln broke", None),
        ("a long story about a trip, tea, a cat and a kiln and much else besides", "Travel"),
        ("nothing to see", "Tea"),
        *[(f"the walk number {n} along the river", "Outdoors") for n in range(8)],
    ]
    sqlite = sqlite3.connect(":memory:")
    sqlite.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5(content, category, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    for content, category in contents:
        memory = add_memory(pg_db, content, category)
        sqlite.execute(
            "INSERT INTO memories_fts (rowid, content, category) VALUES (?, ?, ?)",
            [memory, content, category],
        )
    # Two rare words and "the", in more than half of the rows (FTS5's IDF floor).
    match = '"tea" OR "kiln" OR "the"'
    expected = sqlite.execute(
        "SELECT rowid, bm25(memories_fts, 1.0, 0.4) AS score FROM memories_fts "
        "WHERE memories_fts MATCH ? ORDER BY score, rowid",
        [match],
    ).fetchall()
    found = full_text.scored_memory_hits(pg_db, match, 20)
    assert [row[0] for row in found] == [row[0] for row in expected]
    assert [row[1] for row in found] == pytest.approx([row[1] for row in expected], rel=1e-9)


def test_a_write_never_waits_for_another_computers_fold(postgres_url, pg_db):
    add_memory(pg_db, "tea and kiln")
    first = psycopg.connect(postgres_url, autocommit=True)
    second = psycopg.connect(postgres_url, autocommit=True)
    try:
        second.execute("SET lock_timeout = '2s'")
        with first.transaction():
            assert first.execute("SELECT acai_fold_full_text_changes()").fetchone()[0] > 0
            first.execute(
                "INSERT INTO memories (kind, content, origin, created_at, updated_at) "
                "VALUES ('fact', 'more tea', 'user', %s, %s)",
                [NOW, NOW],
            )
            # Another computer's write of the same words, and its fold, while the first
            # holds the fold lock and the totals' rows: neither waits.
            done = threading.Event()

            def other_computer():
                with second.transaction():
                    second.execute(
                        "INSERT INTO memories (kind, content, origin, created_at, updated_at) "
                        "VALUES ('fact', 'tea kiln tea', 'user', %s, %s)",
                        [NOW, NOW],
                    )
                    assert second.execute("SELECT acai_fold_full_text_changes()").fetchone()[0] == 0
                done.set()

            worker = threading.Thread(target=other_computer)
            worker.start()
            worker.join(10)
            assert done.is_set()
    finally:
        first.close()
        second.close()
    assert kept(pg_db, "memories") == counted(pg_db, "memories")


@pytest.mark.parametrize("last", ["baseline_m011", "m016_idempotent_recall_window"])
def test_a_database_from_before_m018_upgrades_in_place(postgres_url, last):
    """From the oldest released PostgreSQL schema and from the one just before m018."""
    db = PostgresDatabase(postgres_url)
    try:
        postgres_database_at(db, last)
        ids = fill(db)
        # Flags 0/1 and times ISO text, as the released schemas kept them ('' for no time).
        first, second = ids["memories"][:2]
        used = "2026-12-06T10:11:12.345678+00:00"
        db.execute(
            "UPDATE memories SET pinned = 1, user_edited = 1, last_used_at = ? WHERE id = ?",
            [used, first],
        )
        db.execute("UPDATE memories SET last_used_at = '' WHERE id = ?", [second])
        db.execute("UPDATE conversations SET pinned = 1")
        memories = "SELECT id, pinned, user_edited, last_used_at FROM memories ORDER BY id"
        before = db.execute(memories).fetchall()
        assert "m018_fts5_words_and_kept_statistics" in migrations.apply(db)
        assert migrations.pending(db) == []
        types = dict(
            ((table, column), kind)
            for table, column, kind in db.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema()"
            ).fetchall()
        )
        assert {types[table, column] for table, column, _ in M020_FLAGS} == {"boolean"}
        assert {types[table, column] for table, column in M020_TIMES} == {
            "timestamp with time zone"
        }
        # Read back as SQLite gives them: flags 0/1, times the same ISO text ('' none).
        assert db.execute(memories).fetchall() == [
            (row_id, pinned, edited, None if at == "" else at)
            for row_id, pinned, edited, at in before
        ]
        assert (1, used) in [(row[1], row[3]) for row in db.execute(memories).fetchall()]
        assert db.execute("SELECT DISTINCT pinned, temporary FROM conversations").fetchall() == [
            (1, 0)
        ]
        recallable = db.execute("SELECT count(*) FROM recallable_messages").fetchone()[0]
        assert recallable == len(ids["messages"])
        for table in TABLES:
            assert kept(db, table) == counted(db, table), table
        vector = db.execute(
            "SELECT search_vector::text FROM memories WHERE id = ?", [ids["memories"][0]]
        ).fetchone()[0]
        assert "'carolin':1A" in vector and "'food'" not in vector  # FTS5's words now
        change_some(db, ids)
        for table in TABLES:
            assert kept(db, table) == counted(db, table), table
        hits = full_text.scored_memory_hits(db, '"kiln"', 5)
        assert [hit[0] for hit in hits] == [ids["memories"][0]]
    finally:
        db.close()


def test_the_upkeep_after_start_folds_the_changes_and_merges_the_indexes_pending_entries(pg_db):
    fill(pg_db)
    assert pg_db.execute("SELECT count(*) FROM full_text_changes").fetchone()[0] > 0
    for table in FULL_TEXT_TABLES:
        assert merge_step(pg_db, table) is False  # nothing for the caller to repeat
    assert pg_db.execute("SELECT count(*) FROM full_text_changes").fetchone()[0] == 0
    for table in TABLES:
        assert kept(pg_db, table) == counted(pg_db, table), table
        pending = pg_db.execute("SELECT gin_clean_pending_list(?::regclass)", [f"{table}_search"])
        assert pending.fetchone()[0] == 0
