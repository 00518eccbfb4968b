"""PostgreSQL's own parts of the schema (``schema.py`` names them; SQLite's are in
``sqlite_schema.py``): FTS5's words and BM25's kept statistics, the recall table kept
in step by triggers, the parent a message gets, NOTIFY of changes, and the memory
panel's search text.

The present of what PostgreSQL's baseline_m011, m016, m018, m019 and m020 made; migrations m016 and
m018 (``migrations.py``) run the same text on a database from before them. Change it by a
new migration that replaces it (``CREATE OR REPLACE``), and give m016 and m018 the
released text to keep, in ``migrations.py``: a released migration never changes.
"""

from __future__ import annotations

PANEL_FOLD = """
-- The memory panel's search text (SQLite registers it from Python: memory/listing.py),
-- lower-cased by ICU's root locale, as Python's casefold, whatever the database's locale.
CREATE FUNCTION acai_panel_fold(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT lower(coalesce($1, '') COLLATE "und-x-icu") || E'\n'
          || lower(coalesce($2, '') COLLATE "und-x-icu") $$;
"""

# FTS5's words on PostgreSQL (issue 41 item 2): the text split as FTS5's unicode61
# tokenizer splits it (letters and digits of any script by ICU's classes, case folded,
# Latin accents removed: remove_diacritics 2), each word of 3 to 64 bytes stemmed by
# Porter's algorithm as FTS5's porter stems it (Snowball's "porter", plus FTS5's
# "-logi" -> "-log"). No stop words: FTS5 has none. A word longer than a tsvector
# lexeme may be (2046 bytes) is left out, as to_tsvector leaves it out.
FTS5_WORDS = r"""
CREATE TEXT SEARCH DICTIONARY acai_porter (TEMPLATE = snowball, Language = porter);
-- ASCII text (most of it) needs neither Unicode step: lower() of ASCII is the same.
CREATE FUNCTION acai_fts_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN octet_length($1) = length($1) THEN lower($1 COLLATE "C") COLLATE "und-x-icu"
          ELSE lower(normalize(regexp_replace(normalize($1, NFKD),
                 '([A-Za-z])[\u0300-\u036f]+', '\1', 'g'), NFC) COLLATE "und-x-icu") END $$;
-- FTS5's porter rule that Snowball's lacks: "-logi" -> "-log" after a stem with a
-- vowel followed by a consonant ("technologi" -> "technolog").
CREATE FUNCTION acai_fts5_porter_logi(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN $1 LIKE '%logi'
          THEN regexp_replace($1, '^(.*[aeiouy][^aeiouy].*)logi$', '\1log') ELSE $1 END $$;
-- PL/pgSQL: its plan is kept for the session (a SQL function's body with a FROM is
-- planned again by every statement that calls it).
CREATE FUNCTION acai_fts_words(text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT coalesce(array_agg(CASE WHEN octet_length(w) BETWEEN 3 AND 64 THEN
                acai_fts5_porter_logi(coalesce((ts_lexize('acai_porter', w))[1], w))
                ELSE w END ORDER BY n), '{}')
            FROM regexp_split_to_table(acai_fts_fold($1) COLLATE "und-x-icu", '[^[:alnum:]]+')
                WITH ORDINALITY AS s(w, n)
            WHERE w <> '' AND octet_length(w) <= 2046);
END $$;
CREATE FUNCTION acai_fts_quote(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '''' || replace(replace($1, '\', '\\'), '''', '''''') || '''' $$;
-- A row's two columns as one tsvector: the first's words weighted A at positions 1 to
-- 8191, the second's weighted B from 8192 on, so a word's count in each column is read
-- from its positions alone (FTS5's bm25() weighs each column's hits; the search marks
-- the query's words with weight C to cut the vector down to them) and no phrase spans
-- the two columns, as in FTS5. A word past the 8191st of a column shares the last
-- position (PostgreSQL keeps one entry per position). PL/pgSQL, so each column is
-- split once (a SQL function's subquery was run again per word).
CREATE FUNCTION acai_fts_vector(first text, second text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    first_words text[] := acai_fts_words(first);
    second_words text[] := acai_fts_words(second);
BEGIN
    RETURN (SELECT coalesce(string_agg(acai_fts_quote(w.word) || ':' || w.place, ' '), '')
            FROM (SELECT x.word, least(x.n, 8191) || 'A' AS place
                  FROM unnest(first_words) WITH ORDINALITY AS x(word, n)
                  UNION ALL
                  SELECT x.word, least(8191 + x.n, 16383) || 'B'
                  FROM unnest(second_words) WITH ORDINALITY AS x(word, n)) AS w)::tsvector;
END $$;
-- A row's length as FTS5's bm25() counts it: its words in every column (counted, not
-- stemmed).
CREATE FUNCTION acai_fts_length(text, text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT regexp_count(acai_fts_fold($1 || ' ' || $2) COLLATE "und-x-icu", '[[:alnum:]]+') $$;
-- FTS5 quoted terms as a tsquery: each term the phrase of its words, the terms joined
-- by ``joiner`` (' | ' or ' & '); ``weight``: '' or 'A' (the first column only).
CREATE FUNCTION acai_fts_query(terms text[], joiner text, weight text DEFAULT '')
RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT coalesce(string_agg(p.phrase, joiner ORDER BY p.i), '')::tsquery FROM (
       SELECT t.i, '(' || string_agg(acai_fts_quote(w.word) || CASE WHEN weight = '' THEN ''
                  ELSE ':' || weight END, ' <-> ' ORDER BY w.n) || ')' AS phrase
       FROM unnest(terms) WITH ORDINALITY AS t(term, i),
            unnest(acai_fts_words(t.term)) WITH ORDINALITY AS w(word, n)
       GROUP BY t.i) AS p $$;
-- The conversation search's match: every term in the first column as its words or,
-- longer than one letter, as the start of a word (FTS5's "term" OR "term"*).
CREATE FUNCTION acai_fts_prefix_query(terms text[]) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT coalesce(string_agg('(' || acai_fts_query(ARRAY[t.term], '', 'A')::text
              || CASE WHEN length(t.term) > 1
                      THEN ' | ' || acai_fts_quote(acai_fts_fold(t.term)) || ':*A' ELSE '' END
              || ')', ' & '), '')::tsquery
   FROM unnest(terms) AS t(term) WHERE acai_fts_fold(t.term) <> '' $$;
"""

# What FTS5 keeps beside its index and bm25() reads: a table's row count and total
# length (word ''), and how many rows hold each word. The triggers below append
# changes to full_text_changes (an insert locks no row another computer's write could
# wait for); whichever write crosses a mark every few thousand changes folds them into
# full_text_totals, one folder at a time (a try-lock: a write never waits for another's
# fold). A reader adds the changes not yet folded.
_FULL_TEXT_FOLD_LOCK = 0x41434146  # "ACAF"
_FOLD_EVERY = 4096
FULL_TEXT_STATISTICS = f"""
CREATE TABLE full_text_totals (
    full_text text NOT NULL,
    word text NOT NULL,
    documents bigint NOT NULL,
    tokens bigint NOT NULL,
    PRIMARY KEY (full_text, word)
);
CREATE TABLE full_text_changes (
    id bigint GENERATED ALWAYS AS IDENTITY,
    full_text text NOT NULL,
    word text NOT NULL,
    documents bigint NOT NULL,
    tokens bigint NOT NULL
);
CREATE INDEX full_text_changes_by_word ON full_text_changes(full_text, word);

CREATE FUNCTION acai_fold_full_text_changes() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock({_FULL_TEXT_FOLD_LOCK}) THEN
        RETURN 0;
    END IF;
    WITH moved AS (DELETE FROM full_text_changes RETURNING full_text, word, documents, tokens)
    INSERT INTO full_text_totals AS t (full_text, word, documents, tokens)
        SELECT full_text, word, sum(documents), sum(tokens) FROM moved
        GROUP BY full_text, word ORDER BY full_text, word
    ON CONFLICT (full_text, word) DO UPDATE
        SET documents = t.documents + EXCLUDED.documents, tokens = t.tokens + EXCLUDED.tokens;
    GET DIAGNOSTICS folded = ROW_COUNT;
    DELETE FROM full_text_totals WHERE documents = 0 AND word <> '';
    RETURN folded;
END $$;

-- BM25's statistics of ``terms`` in ``full_text_table``: each term's words in order
-- (term 1, 2, …; place 1, 2, …) with how many rows hold the word, and first (term 0,
-- word '') the table's rows and words in all. The folded totals plus the changes not
-- folded yet, in one statement (one snapshot: the row count and a word's count always
-- agree). PL/pgSQL, so its plan is kept for the session.
CREATE FUNCTION acai_full_text_counts(full_text_table text, terms text[])
RETURNS TABLE (term bigint, place bigint, word text, documents bigint, tokens bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH asked AS MATERIALIZED (
        SELECT 0::bigint AS i, 0::bigint AS n, ''::text AS word
        UNION ALL
        SELECT t.i, w.n, w.word FROM unnest(terms) WITH ORDINALITY AS t(term, i),
            unnest(acai_fts_words(t.term)) WITH ORDINALITY AS w(word, n)
    ), counted AS (
        SELECT c.word, sum(c.documents)::bigint AS documents, sum(c.tokens)::bigint AS tokens
        FROM (
            SELECT f.word, f.documents, f.tokens FROM full_text_totals AS f
            WHERE f.full_text = full_text_table
                AND f.word = ANY(ARRAY(SELECT a.word FROM asked AS a))
            UNION ALL
            SELECT f.word, f.documents, f.tokens FROM full_text_changes AS f
            WHERE f.full_text = full_text_table
                AND f.word = ANY(ARRAY(SELECT a.word FROM asked AS a))
        ) AS c GROUP BY c.word
    )
    SELECT a.i, a.n, a.word, coalesce(c.documents, 0)::bigint, coalesce(c.tokens, 0)::bigint
    FROM asked AS a LEFT JOIN counted AS c ON c.word = a.word ORDER BY a.i, a.n;
END $$;

-- What FTS5's bm25() needs of ``terms``: their distinct words, each word's IDF as FTS5
-- computes it (log((N - n + 0.5) / (n + 0.5)), 1e-6 where that is not above 0), and the
-- table's average row length (at least 1).
CREATE FUNCTION acai_bm25_words(full_text_table text, terms text[],
    OUT words text[], OUT idfs float8[], OUT average float8)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    WITH counts AS MATERIALIZED (
        SELECT * FROM acai_full_text_counts(full_text_table, terms)
    ), whole AS (
        SELECT c.documents AS total, c.tokens FROM counts AS c WHERE c.term = 0
    ), distinct_words AS (
        SELECT DISTINCT c.word, least(c.documents, w.total) AS holding, w.total
        FROM counts AS c, whole AS w WHERE c.term > 0
    )
    SELECT coalesce(array_agg(d.word ORDER BY d.word), '{{}}'),
           coalesce(array_agg(greatest(ln((d.total - d.holding + 0.5) / (d.holding + 0.5)),
                                       1e-6) ORDER BY d.word), '{{}}'),
           (SELECT greatest(w.tokens::float8 / greatest(w.total, 1), 1.0) FROM whole AS w)
    INTO words, idfs, average
    FROM distinct_words AS d;
END $$;

CREATE FUNCTION acai_count_full_text() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    added tsvector := '';
    removed tsvector := '';
    documents bigint := 0;
    tokens bigint := 0;
    written bigint;
    last bigint;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        removed := OLD.search_vector;
        documents := -1;
        tokens := -OLD.search_length;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        added := NEW.search_vector;
        documents := documents + 1;
        tokens := tokens + NEW.search_length;
    END IF;
    IF TG_OP = 'UPDATE' AND added = removed AND tokens = 0 THEN
        RETURN NULL;
    END IF;
    -- The words only one side holds (set differences of the lexemes, in C).
    INSERT INTO full_text_changes (full_text, word, documents, tokens)
        SELECT TG_TABLE_NAME, word, 1, 0
        FROM unnest(tsvector_to_array(ts_delete(added, tsvector_to_array(removed)))) AS word
        UNION ALL
        SELECT TG_TABLE_NAME, word, -1, 0
        FROM unnest(tsvector_to_array(ts_delete(removed, tsvector_to_array(added)))) AS word
        UNION ALL SELECT TG_TABLE_NAME, '', documents, tokens
        WHERE documents <> 0 OR tokens <> 0;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written > 0 THEN
        last := currval(pg_get_serial_sequence('full_text_changes', 'id'));
        IF last / {_FOLD_EVERY} > (last - written) / {_FOLD_EVERY} THEN
            PERFORM acai_fold_full_text_changes();
        END IF;
    END IF;
    RETURN NULL;
END $$;
"""

#: PostgreSQL's table of each FTS5 table, the SQL of its two indexed columns, and the
#: columns an update must touch to change them.
FULL_TEXT_COLUMNS = (
    ("memories", "content", "coalesce(category, '')", "content, category"),
    ("message_recall", "content", "context", "content, context"),
    ("chunks", "content", "heading", "content, heading"),
)


def fts5_words_in(table: str, first: str, second: str, columns: str, replacing: bool) -> str:
    """SQL: ``table``'s full-text column made with FTS5's words (``replacing`` the one
    of English words that databases before m018 have), its length beside it, its
    statistics counted, and kept from then on."""
    drop = f"ALTER TABLE {table} DROP COLUMN search_vector;" if replacing else ""
    return f"""
    {drop}
    ALTER TABLE {table}
        ADD COLUMN search_vector tsvector
            GENERATED ALWAYS AS (acai_fts_vector({first}, {second})) STORED,
        ADD COLUMN search_length integer
            GENERATED ALWAYS AS (acai_fts_length({first}, {second})) STORED;
    CREATE INDEX {table}_search ON {table} USING gin (search_vector);
    INSERT INTO full_text_totals (full_text, word, documents, tokens)
        SELECT '{table}', '', count(*), coalesce(sum(search_length), 0) FROM {table};
    INSERT INTO full_text_totals (full_text, word, documents, tokens)
        SELECT '{table}', e.lexeme, count(*), 0 FROM {table} AS t, unnest(t.search_vector) AS e
        GROUP BY e.lexeme;
    CREATE TRIGGER {table}_full_text_insert AFTER INSERT ON {table}
        FOR EACH ROW EXECUTE FUNCTION acai_count_full_text();
    CREATE TRIGGER {table}_full_text_update AFTER UPDATE OF {columns} ON {table}
        FOR EACH ROW EXECUTE FUNCTION acai_count_full_text();
    CREATE TRIGGER {table}_full_text_delete AFTER DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION acai_count_full_text();
    """


# Episodic recall: the recallable messages, each with the text of the two recallable
# messages before and after it, in ``message_recall`` (SQLite's ``messages_fts``),
# kept in step by the triggers below as SQLite's are.
RECALLABLE_MESSAGES = """
CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m WHERE
    m.role IN ('user', 'assistant') AND m.status IN ('complete', 'stopped')
    AND m.content != ''
    AND NOT (SELECT c.temporary FROM conversations AS c WHERE c.id = m.conversation_id)
    AND NOT m.hidden
"""
_RECALL_ROWS = """
CREATE VIEW message_recall_rows AS
SELECT r.id, r.content, coalesce((
    SELECT string_agg(around.content, ' ') FROM (
        (SELECT content FROM recallable_messages
         WHERE conversation_id = r.conversation_id AND id < r.id ORDER BY id DESC LIMIT 2)
        UNION ALL
        (SELECT content FROM recallable_messages
         WHERE conversation_id = r.conversation_id AND id > r.id ORDER BY id LIMIT 2)
    ) AS around), '') AS context
FROM recallable_messages AS r
"""
_RECALL_TABLE = """
CREATE TABLE message_recall (
    id bigint PRIMARY KEY,
    content text NOT NULL,
    context text NOT NULL
)
"""

# The recall window as an upsert, rows no longer recallable deleted after (issue 39 G1).
# Deleting first and then inserting was not idempotent across computers: a second
# transaction's delete waited for the first's, found nothing to delete once it committed,
# and its insert then hit the row the first had put back ("message_recall_pkey"). In id
# order, so two refreshes of overlapping windows lock their rows in one order.
REFRESH_RECALL_WINDOW = """
CREATE OR REPLACE FUNCTION acai_refresh_recall_window(conv bigint, msg bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    window_ids bigint[];
BEGIN
    SELECT array_agg(id) INTO window_ids FROM (
        SELECT msg AS id
        UNION SELECT id FROM (SELECT id FROM recallable_messages
            WHERE conversation_id = conv AND id < msg ORDER BY id DESC LIMIT 2) AS before
        UNION SELECT id FROM (SELECT id FROM recallable_messages
            WHERE conversation_id = conv AND id > msg ORDER BY id LIMIT 2) AS after
    ) AS ids;
    INSERT INTO message_recall (id, content, context)
        SELECT id, content, context FROM message_recall_rows WHERE id = ANY (window_ids)
        ORDER BY id
    ON CONFLICT (id) DO UPDATE SET content = EXCLUDED.content, context = EXCLUDED.context;
    DELETE FROM message_recall AS r WHERE r.id = ANY (window_ids)
        AND NOT EXISTS (SELECT 1 FROM recallable_messages AS m WHERE m.id = r.id);
END $$;
"""


_RECALL_TRIGGERS = """
CREATE FUNCTION acai_messages_recall() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM message_embeddings WHERE message_id = OLD.id;
        PERFORM acai_refresh_recall_window(OLD.conversation_id, OLD.id);
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NOT (OLD.status IN ('complete', 'stopped') OR NEW.status IN ('complete', 'stopped')
                OR OLD.content != NEW.content OR OLD.hidden != NEW.hidden) THEN
            RETURN NEW;
        END IF;
        IF OLD.content != NEW.content OR OLD.hidden != NEW.hidden THEN
            DELETE FROM message_embeddings WHERE message_id = NEW.id;
        END IF;
    END IF;
    PERFORM acai_refresh_recall_window(NEW.conversation_id, NEW.id);
    RETURN NEW;
END $$;
CREATE TRIGGER messages_recall_insert AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION acai_messages_recall();
CREATE TRIGGER messages_recall_update AFTER UPDATE OF content, status, hidden ON messages
    FOR EACH ROW EXECUTE FUNCTION acai_messages_recall();
CREATE TRIGGER messages_recall_delete AFTER DELETE ON messages
    FOR EACH ROW EXECUTE FUNCTION acai_messages_recall();
"""

_PARENT_DEFAULT = """
-- A message inserted without a parent follows the end of the shown path (m010).
CREATE FUNCTION acai_message_parent_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.parent_id IS NULL THEN
        NEW.parent_id := (SELECT max(p.id) FROM messages AS p
            WHERE p.conversation_id = NEW.conversation_id AND p.id < NEW.id
                AND NOT p.hidden);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER messages_parent_default BEFORE INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION acai_message_parent_default();
"""

# What another computer must follow (a memory's change: a row of memory_events; a
# suggestion; a conversation; a job queued), announced to every computer on the
# database when its transaction commits, and only then (docs/architecture.md, "Events
# across computers"). Once per statement, with the table's name: PostgreSQL folds
# equal notices of one transaction into one, and the listener reads what changed by
# its id cursors (core/profile/outside_changes.py).
CHANGES_CHANNEL = "acai_changes"
_NOTIFIED_TABLES = ("memory_events", "memory_suggestions", "conversations", "jobs")
_NOTIFY_ON_CHANGES = f"""
CREATE FUNCTION acai_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANGES_CHANNEL}', TG_TABLE_NAME);
    RETURN NULL;
END $$;
""" + "".join(
    f"CREATE TRIGGER {table}_notify AFTER INSERT ON {table} "
    "FOR EACH STATEMENT EXECUTE FUNCTION acai_notify_change();\n"
    for table in _NOTIFIED_TABLES
)


BEFORE_TABLES = (PANEL_FOLD, FTS5_WORDS, FULL_TEXT_STATISTICS)
RECALL = (RECALLABLE_MESSAGES, _RECALL_ROWS, _RECALL_TABLE, REFRESH_RECALL_WINDOW, _RECALL_TRIGGERS)
MESSAGE_PARENT_DEFAULT = (_PARENT_DEFAULT,)
FULL_TEXT = tuple(
    fts5_words_in(table, first, second, columns, replacing=False)
    for table, first, second, columns in FULL_TEXT_COLUMNS
)
NOTIFY = (_NOTIFY_ON_CHANGES,)
