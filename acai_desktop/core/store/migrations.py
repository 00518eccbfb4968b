"""The one migration history of both engines: named migrations, applied in order.

Never edit a released migration: add ``m0NN_...`` below the last, written once over
both engines (``_run`` and the neutral columns of ``schema_model.py``; a real
difference named by its part of the schema), and change ``schema.py`` to match
(``tests/core/test_schema.py`` fails until the two agree on both engines).

m001 … m011 are SQLite's alone: PostgreSQL databases began at ``baseline_m011``, their
schema (``migration_runner.py``). A migration names the engine types of its day (a
flag is an INTEGER in m014); ``schema.py`` names what a column means.
"""

from __future__ import annotations

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.migration_runner import Migrations, is_postgres


def _create_schema(db) -> None:
    # Imported when a database is made or migrated, not by every open.
    from acai_desktop.core.store.schema import create_schema

    create_schema(db)


migrations = Migrations("acai_desktop", _create_schema)


def _run(db, *statements: str) -> None:
    """DDL on either engine (no parameters: PostgreSQL's runs as it is written)."""
    for statement in statements:
        if is_postgres(db):
            db.connection.execute(statement)
        else:
            db.execute(statement)


def _add(db, table: str, column) -> None:
    from acai_desktop.core.store.schema_model import add_column, engine_of

    _run(db, add_column(table, column, engine_of(db)))


@migrations()
def m001_initial(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            temporary INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id),
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
            content TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'streaming', 'stopped', 'error')),
            model TEXT,
            tokens INTEGER,
            folded_into INTEGER REFERENCES memories(id),
            error TEXT,
            plan TEXT,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX messages_by_conversation ON messages(conversation_id, id)")
    db.execute(
        """
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('fact', 'summary', 'note')),
            content TEXT NOT NULL,
            category TEXT,
            confidence REAL NOT NULL DEFAULT 1.0,
            importance REAL NOT NULL DEFAULT 0.5,
            pinned INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'superseded', 'forgotten', 'conflict', 'temporary')),
            origin TEXT NOT NULL CHECK (origin IN ('user', 'critical_info', 'summary')),
            user_edited INTEGER NOT NULL DEFAULT 0,
            superseded_by INTEGER REFERENCES memories(id),
            conversation_id INTEGER REFERENCES conversations(id),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_used_at TEXT,
            use_count INTEGER NOT NULL DEFAULT 0,
            embedding BLOB,
            embedding_model TEXT,
            meta TEXT
        )"""
    )
    db.execute("CREATE INDEX memories_by_status ON memories(status, kind)")
    # External-content FTS5 index over content and category. The porter stemmer makes
    # "prefer" match "preferred"; triggers keep it in step with every write.
    db.execute(
        """
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, category,
            content='memories', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )"""
    )
    db.execute(
        """
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, content, category)
            VALUES (new.id, new.content, coalesce(new.category, ''));
        END"""
    )
    db.execute(
        """
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, content, category)
            VALUES ('delete', old.id, old.content, coalesce(old.category, ''));
        END"""
    )
    db.execute(
        """
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, category ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, content, category)
            VALUES ('delete', old.id, old.content, coalesce(old.category, ''));
            INSERT INTO memories_fts(rowid, content, category)
            VALUES (new.id, new.content, coalesce(new.category, ''));
        END"""
    )
    db.execute(
        """
        CREATE TABLE memory_sources (
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            message_id INTEGER NOT NULL REFERENCES messages(id),
            PRIMARY KEY (memory_id, message_id)
        )"""
    )
    db.execute("CREATE INDEX memory_sources_by_message ON memory_sources(message_id)")
    db.execute(
        """
        CREATE TABLE memory_events (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            at TEXT NOT NULL,
            actor TEXT NOT NULL CHECK (actor IN
                ('user', 'summary_processor', 'critical_info_processor', 'system')),
            action TEXT NOT NULL,
            before TEXT,
            after TEXT
        )"""
    )
    db.execute("CREATE INDEX memory_events_by_memory ON memory_events(memory_id, id)")
    db.execute(
        """
        CREATE TABLE answer_sources (
            message_id INTEGER NOT NULL REFERENCES messages(id),
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            reasons TEXT NOT NULL,
            PRIMARY KEY (message_id, memory_id)
        )"""
    )
    db.execute("CREATE INDEX answer_sources_by_memory ON answer_sources(memory_id)")
    db.execute(
        """
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            conversation_id INTEGER,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            run_after TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX jobs_by_status ON jobs(status, id)")
    db.execute(
        """
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )"""
    )


@migrations()
def m002_durable_jobs(db: Database) -> None:
    """Jobs that never get lost, never run twice, and come back after a failure.

    * ``wait_for_message_id``: a job queued with the user's message waits until that
      message's answer is no longer ``streaming`` (a crash marks it ``stopped`` at the
      next start, so the job runs then).
    * ``revivals``: how many times a failed job was queued again (automatically when the
      model is reachable again or at start-up, or by the user); automatic ones are capped.
    * ``retryable``: 0 when the failure can't be cured by trying again (invalid content).
    * ``memory_write_keys``: each write a job makes is keyed to the job, in the same
      transaction, so a job that runs again after a crash or failure doesn't write twice.
    """
    db.execute("ALTER TABLE jobs ADD COLUMN wait_for_message_id INTEGER")
    db.execute("ALTER TABLE jobs ADD COLUMN revivals INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE jobs ADD COLUMN retryable INTEGER NOT NULL DEFAULT 1")
    db.execute(
        """
        CREATE TABLE memory_write_keys (
            key TEXT PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            at TEXT NOT NULL
        )"""
    )


@migrations()
def m003_memories_by_created(db: Database) -> None:
    # The memory panel lists newest first, a page at a time: with this index its first
    # page of a 100k-memory profile is read in a millisecond instead of sorting them all.
    db.execute("CREATE INDEX memories_by_created ON memories(created_at)")


# Which messages episodic recall may bring back: the words of a finished turn (or of
# a stopped answer) of an ordinary conversation. A temporary chat writes no memories,
# so its messages are never indexed; a deleted chat's messages are gone with it.
_RECALLABLE = """
    m.role IN ('user', 'assistant') AND m.status IN ('complete', 'stopped')
    AND m.content != ''
    AND (SELECT c.temporary FROM conversations AS c WHERE c.id = m.conversation_id) = 0
"""

# The ids of the recallable messages within two places before and after the message
# ``{row}`` (new or old) in its conversation, and its own id: the rows whose indexed
# context changes when that message appears, changes or goes.
_WINDOW = """
    SELECT {row}.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = {row}.conversation_id AND id < {row}.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = {row}.conversation_id AND id > {row}.id
        ORDER BY id LIMIT 2)
"""


def _refresh_window(row: str) -> str:
    window = _WINDOW.format(row=row)
    return f"""
        DELETE FROM messages_fts WHERE rowid IN ({window});
        INSERT INTO messages_fts (rowid, content, context)
            SELECT id, content, context FROM message_recall_rows WHERE id IN ({window});
    """


@migrations()
def m004_episodic_messages(db: Database) -> None:
    """Episodic recall: every recallable message in a full-text index with the words of
    the turns around it, its author, and answers whose provenance names a message.

    ``messages_fts`` holds, per recallable message, its text (``content``) and the text
    of the two recallable messages before and after it in the same conversation
    (``context``): a reply such as "Yes, last Friday!" is found by the question it
    answers (on LoCoMo, BM25 over the turn with that context finds the evidence of 0.81
    of the questions, the turn alone 0.65). Triggers keep it in step with every insert,
    change and deletion of a message. It stores its own copy of the text (SQLite 3.40
    has no contentless delete), a few hundred bytes per message.

    ``message_embeddings`` holds each recallable message's vector (computed by the
    memory service, which also keeps them in its index); a message's vector goes when
    the message goes or its text changes.

    ``answer_sources`` could only name a memory (``memory_id`` in its primary key);
    a row now names a memory or a recalled message (``recalled_message_id``), one per
    rank of an answer's sources. Existing rows are kept.
    """
    db.execute("ALTER TABLE messages ADD COLUMN author TEXT")
    # "What did I say on 9 November?": recall looks messages up by their date.
    db.execute("CREATE INDEX messages_by_date ON messages(created_at)")
    db.execute(
        f"CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m WHERE {_RECALLABLE}"
    )
    db.execute(
        """
        CREATE VIEW message_recall_rows AS
        SELECT r.id, r.content, coalesce((
            SELECT group_concat(content, ' ') FROM (
                SELECT content FROM (
                    SELECT id, content FROM recallable_messages
                    WHERE conversation_id = r.conversation_id AND id < r.id
                    ORDER BY id DESC LIMIT 2)
                UNION ALL
                SELECT content FROM (
                    SELECT id, content FROM recallable_messages
                    WHERE conversation_id = r.conversation_id AND id > r.id
                    ORDER BY id LIMIT 2))), '') AS context
        FROM recallable_messages AS r"""
    )
    db.execute(
        """
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            content, context,
            tokenize='porter unicode61 remove_diacritics 2'
        )"""
    )
    db.execute(
        """
        CREATE TABLE message_embeddings (
            message_id INTEGER PRIMARY KEY,
            embedding BLOB NOT NULL,
            embedding_model TEXT NOT NULL
        )"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            {_refresh_window("new")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status ON messages
        WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
            OR old.content != new.content
        BEGIN
            DELETE FROM message_embeddings
            WHERE message_id = new.id AND old.content != new.content;
            {_refresh_window("new")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            DELETE FROM message_embeddings WHERE message_id = old.id;
            {_refresh_window("old")}
        END"""
    )
    db.execute(
        "INSERT INTO messages_fts (rowid, content, context) "
        "SELECT id, content, context FROM message_recall_rows"
    )

    db.execute(
        """
        CREATE TABLE answer_sources_v2 (
            message_id INTEGER NOT NULL REFERENCES messages(id),
            memory_id INTEGER REFERENCES memories(id),
            recalled_message_id INTEGER REFERENCES messages(id),
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            reasons TEXT NOT NULL,
            PRIMARY KEY (message_id, rank),
            CHECK ((memory_id IS NULL) != (recalled_message_id IS NULL))
        )"""
    )
    db.execute(
        """
        INSERT INTO answer_sources_v2 (message_id, memory_id, rank, score, reasons)
        SELECT message_id, memory_id,
               row_number() OVER (PARTITION BY message_id ORDER BY rank, memory_id),
               score, reasons
        FROM answer_sources"""
    )
    db.execute("DROP TABLE answer_sources")
    db.execute("ALTER TABLE answer_sources_v2 RENAME TO answer_sources")
    db.execute("CREATE INDEX answer_sources_by_memory ON answer_sources(memory_id)")
    db.execute(
        "CREATE INDEX answer_sources_by_recalled_message ON answer_sources(recalled_message_id)"
    )


@migrations()
def m005_drop_settings(db: Database) -> None:
    """Drop ``settings``: nothing ever read or wrote it (settings live in
    ``settings.json`` in the data directory, the API key in the keyring)."""
    db.execute("DROP TABLE IF EXISTS settings")


@migrations()
def m006_memory_suggestions(db: Database) -> None:
    """Facts waiting for the user's yes ("Ask before remembering"). A dismissed one stays,
    so the same fact is never proposed again for the same message; a message deleted with
    its conversation takes its suggestions with it."""
    db.execute(
        """
        CREATE TABLE memory_suggestions (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            conversation_id INTEGER,
            content TEXT NOT NULL,
            normalised TEXT NOT NULL,
            category TEXT NOT NULL DEFAULT 'Other',
            confidence REAL NOT NULL DEFAULT 1.0,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'accepted', 'dismissed')),
            memory_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            decided_at TEXT,
            UNIQUE (message_id, normalised)
        )"""
    )
    db.execute("CREATE INDEX memory_suggestions_by_status ON memory_suggestions(status, id)")


@migrations()
def m007_documents(db: Database) -> None:
    """Documents as evidence beside memory (the user's files, chunked and indexed).

    * ``documents``: one row per file added, with what re-indexing compares (size,
      sha256, mtime) and its indexing state (queued, indexing, ready, error + why).
    * ``chunks``: a document's passages, in order, with the page and heading they came
      from, their vector, and an external-content FTS5 index (``chunks_fts``) kept in
      step by triggers, as ``memories_fts`` is.
    * ``document_scopes`` / ``conversation_documents``: which documents a conversation
      draws evidence from: all (no row), some (the listed ones) or none.
    * ``answer_evidence``: the passages that fed an answer. The document's name, the page
      and a snippet are copied, so the provenance of an old answer still reads after
      its document is removed (the links then become NULL).
    """
    db.execute(
        """
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            size INTEGER NOT NULL DEFAULT 0,
            sha256 TEXT,
            mtime REAL,
            kind TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'indexing', 'ready', 'error')),
            error TEXT,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            page_count INTEGER NOT NULL DEFAULT 0,
            added_at TEXT NOT NULL,
            indexed_at TEXT
        )"""
    )
    db.execute(
        """
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            page INTEGER,
            heading TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            token_count INTEGER NOT NULL,
            embedding BLOB,
            embedding_model TEXT,
            UNIQUE (document_id, ordinal)
        )"""
    )
    db.execute(
        """
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            content, heading,
            content='chunks', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )"""
    )
    db.execute(
        """
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, content, heading)
            VALUES (new.id, new.content, new.heading);
        END"""
    )
    db.execute(
        """
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, content, heading)
            VALUES ('delete', old.id, old.content, old.heading);
        END"""
    )
    db.execute(
        """
        CREATE TRIGGER chunks_fts_update AFTER UPDATE OF content, heading ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, content, heading)
            VALUES ('delete', old.id, old.content, old.heading);
            INSERT INTO chunks_fts(rowid, content, heading)
            VALUES (new.id, new.content, new.heading);
        END"""
    )
    db.execute(
        """
        CREATE TABLE document_scopes (
            conversation_id INTEGER PRIMARY KEY
                REFERENCES conversations(id) ON DELETE CASCADE,
            mode TEXT NOT NULL CHECK (mode IN ('all', 'some', 'none'))
        )"""
    )
    db.execute(
        """
        CREATE TABLE conversation_documents (
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            PRIMARY KEY (conversation_id, document_id)
        )"""
    )
    db.execute(
        """
        CREATE TABLE answer_evidence (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            chunk_id INTEGER REFERENCES chunks(id) ON DELETE SET NULL,
            document_id INTEGER REFERENCES documents(id) ON DELETE SET NULL,
            document_name TEXT NOT NULL,
            page INTEGER,
            score REAL NOT NULL,
            reasons TEXT NOT NULL,
            snippet TEXT NOT NULL,
            PRIMARY KEY (message_id, rank)
        )"""
    )
    db.execute("CREATE INDEX answer_evidence_by_chunk ON answer_evidence(chunk_id)")
    db.execute("CREATE INDEX answer_evidence_by_document ON answer_evidence(document_id)")


@migrations()
def m008_job_interruptions(db: Database) -> None:
    """``jobs.interruptions``: how many times a job was found ``running`` at a start, that
    is, how many times the app died while it ran. A document's indexing job found so a
    second time is not started a third (it may be what kills the app)."""
    db.execute("ALTER TABLE jobs ADD COLUMN interruptions INTEGER NOT NULL DEFAULT 0")


@migrations()
def m009_imported_conversations(db: Database) -> None:
    """Conversations brought in from other assistants, and work they queue.

    * ``conversations.source_id`` / ``messages.source_id``: where an imported row came
      from (``chatgpt:<id>``, ``claude:<uuid>``), unique, so importing the same export
      again adds nothing twice (NULL for the app's own rows).
    * ``paused_job_kinds``: kinds of background job the user paused (learning from
      imported conversations); a row here keeps them queued, in every process, until
      the user resumes them.
    * ``memory_suggestions.via``: who proposed a suggestion from outside the app
      ("Claude Desktop via MCP"); the memory it becomes carries it into its history.
    """
    db.execute("ALTER TABLE conversations ADD COLUMN source_id TEXT")
    db.execute(
        "CREATE UNIQUE INDEX conversations_by_source ON conversations(source_id) "
        "WHERE source_id IS NOT NULL"
    )
    db.execute("ALTER TABLE messages ADD COLUMN source_id TEXT")
    db.execute(
        "CREATE UNIQUE INDEX messages_by_source ON messages(source_id) WHERE source_id IS NOT NULL"
    )
    db.execute(
        """
        CREATE TABLE paused_job_kinds (
            kind TEXT PRIMARY KEY,
            paused_at TEXT NOT NULL
        )"""
    )
    db.execute("ALTER TABLE memory_suggestions ADD COLUMN via TEXT")


# m010: what m004 recalled, minus the messages of a version or branch not shown.
_RECALLABLE_SHOWN = _RECALLABLE + " AND m.hidden = 0"


@migrations()
def m010_message_versions(db: Database) -> None:
    """Answer versions and chat branches: the messages of a conversation form a tree.

    - ``parent_id``: the message this one follows (NULL for the first); a regenerated
      answer is a sibling of the old one (same user message as parent), an edited user
      message a sibling of the old one (same answer before it).
    - ``selected``: 1 for the sibling shown at its fork (remembered inside a branch that
      is itself not shown, so going back there shows what was shown before).
    - ``hidden``: 1 for a message off the shown path. It is derived from the two above
      (``store.message_tree.refresh_shown_path``) and kept so that every query of "the
      conversation's messages" stays one ``hidden = 0`` away from right, and so that
      episodic recall (its views and triggers, redefined here) indexes only what is shown.

    Existing conversations become one straight path: each message's parent is the one
    before it. A message inserted without a parent (an import, a tool) follows the end
    of the shown path, by a trigger.
    """
    db.execute("ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id)")
    db.execute("ALTER TABLE messages ADD COLUMN selected INTEGER NOT NULL DEFAULT 1")
    db.execute("ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0")
    db.execute(
        """
        UPDATE messages SET parent_id = (
            SELECT max(p.id) FROM messages AS p
            WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)"""
    )
    db.execute("CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id)")
    db.execute(
        """
        CREATE TRIGGER messages_parent_default AFTER INSERT ON messages
        WHEN new.parent_id IS NULL BEGIN
            UPDATE messages SET parent_id = (
                SELECT max(p.id) FROM messages AS p
                WHERE p.conversation_id = new.conversation_id AND p.id < new.id
                    AND p.hidden = 0)
            WHERE id = new.id;
        END"""
    )
    db.execute("DROP VIEW message_recall_rows")
    db.execute("DROP VIEW recallable_messages")
    db.execute(
        "CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m "
        f"WHERE {_RECALLABLE_SHOWN}"
    )
    db.execute(
        """
        CREATE VIEW message_recall_rows AS
        SELECT r.id, r.content, coalesce((
            SELECT group_concat(content, ' ') FROM (
                SELECT content FROM (
                    SELECT id, content FROM recallable_messages
                    WHERE conversation_id = r.conversation_id AND id < r.id
                    ORDER BY id DESC LIMIT 2)
                UNION ALL
                SELECT content FROM (
                    SELECT id, content FROM recallable_messages
                    WHERE conversation_id = r.conversation_id AND id > r.id
                    ORDER BY id LIMIT 2))), '') AS context
        FROM recallable_messages AS r"""
    )
    # Hiding or showing a message changes what is recallable, like a change of status;
    # its vector goes too (the index is re-embedded when it is shown again).
    db.execute("DROP TRIGGER messages_fts_update")
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status, hidden ON messages
        WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
            OR old.content != new.content OR old.hidden != new.hidden
        BEGIN
            DELETE FROM message_embeddings
            WHERE message_id = new.id
                AND (old.content != new.content OR old.hidden != new.hidden);
            {_refresh_window("new")}
        END"""
    )


@migrations()
def m011_chat_titles_pins_and_instructions(db: Database) -> None:
    """Chats named by the model, pinned by the user, and the user's custom instructions.

    * ``conversations.title_auto``: 1 while the title is the stand-in made from the first
      words of the first message, which the title job may replace with a model's short
      title; a rename (or that job) sets it to 0, so the user's title always wins.
      Existing conversations keep the titles they have (0).
    * ``conversations.pinned``: 1 keeps the chat at the top of the list.
    * ``profile_instructions``: the profile's custom instructions (one row, id 1);
      ``conversations.instructions``: a chat's override as JSON (NULL: the profile's);
      ``messages.instructions``: what an answer's prompt carried, for its *Sources*.
    """
    db.execute("ALTER TABLE conversations ADD COLUMN title_auto INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    db.execute(
        """
        CREATE TABLE profile_instructions (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            respond TEXT NOT NULL DEFAULT '',
            about TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL
        )"""
    )
    db.execute("ALTER TABLE conversations ADD COLUMN instructions TEXT")
    db.execute("ALTER TABLE messages ADD COLUMN instructions TEXT")


@migrations()
def m012_chat_settings_and_token_usage(db) -> None:
    """A chat's own model settings, and what each answer cost in tokens.

    * ``conversations.model_settings``: the chat's own model, temperature and context
      budget as JSON (NULL, or a key left out: the profile's; see core.conversations.chat_settings).
    * ``messages.usage``: an answer's token usage as JSON: the prompt and completion
      tokens as the server reported them (null when it reported none) and the tokens
      of the turn's memories, recalled messages and passages as the prompt budget
      counted them (see core.turns.token_usage). NULL for answers written before.
    """
    from acai_desktop.core.store.schema_model import TEXT, Column

    _add(db, "conversations", Column("model_settings", TEXT))
    _add(db, "messages", Column("usage", TEXT))


@migrations()
def m013_projects(db) -> None:
    """Projects: a project groups chats, documents and memories (issue 26).

    * ``projects``: a name, the project's custom instructions (JSON, as a chat's
      override; NULL: the profile's) and its default chat model (NULL: the profile's).
    * ``conversations.project_id``, ``documents.project_id``: where a chat or a document
      belongs (NULL: outside any project).
    * ``memories.project_id``: the project a memory belongs to (NULL: everywhere). A
      memory learned in a project's chat gets the chat's project when it is written
      (``memory_writes``); the user promotes it to everywhere, or demotes it back.
    Existing rows stay outside any project: every chat and memory works as before.
    """
    from acai_desktop.core.store.schema_model import INTEGER, TEXT, Column, Index, Table, engine_of

    projects = Table(
        "projects",
        (
            Column("id", INTEGER, identity=True),
            Column("name", TEXT, required=True),
            Column("instructions", TEXT),
            Column("default_model", TEXT),
            Column("created_at", TEXT, required=True),
            Column("updated_at", TEXT, required=True),
        ),
    )
    _run(db, projects.ddl(engine_of(db)))
    for table in ("conversations", "memories", "documents"):
        _add(db, table, Column("project_id", INTEGER, references="projects(id)"))
    _run(
        db,
        Index("conversations_by_project", "conversations", "project_id").ddl(),
        Index("memories_by_project", "memories", "project_id").ddl(),
    )


@migrations()
def m014_chat_attachments(db) -> None:
    """Files attached in a chat's composer: documents that belong to one chat.

    * ``documents.attachment``: 1 for a file attached in the composer (its ``path`` is the
      app's own copy under the profile's ``attachments`` folder), 0 for the user's
      library (the Documents tab).
    * ``documents.conversation_id``: the chat an attachment belongs to; NULL for the
      library, and for an attachment held by a new chat until its first message is sent.
      An attachment is evidence for its own chat only, and goes with the chat.
    """
    from acai_desktop.core.store.schema_model import INTEGER, Column, Index

    _add(db, "documents", Column("attachment", INTEGER, required=True, default=0))
    _add(
        db,
        "documents",
        Column("conversation_id", INTEGER, references="conversations(id)", on_delete="CASCADE"),
    )
    _run(
        db,
        Index(
            "documents_by_conversation", "documents", "conversation_id", where="attachment = 1"
        ).ddl(),
    )


@migrations()
def m015_messages_as_sent(db) -> None:
    """``messages.sent_content``: a user message as its prompt carried it (the turn's
    data, then the user's words under their header). The next turns' history sends it
    so, word for word, and their prompts start with the whole previous prompt and its
    answer: a server's prompt cache reads only what is new (issue 22). NULL for
    messages sent before (and imported ones): their history sends their words."""
    from acai_desktop.core.store.schema_model import TEXT, Column

    _add(db, "messages", Column("sent_content", TEXT))


@migrations()
def m016_idempotent_recall_window(db) -> None:
    """PostgreSQL's recall-window refresh became an upsert (issue 39 G1): two computers
    re-indexing one window at once both inserted the same row. SQLite's writers take the
    write lock one at a time, so its delete-then-insert is never interleaved."""
    if is_postgres(db):
        from acai_desktop.core.store.postgres.schema_parts import REFRESH_RECALL_WINDOW

        _run(db, REFRESH_RECALL_WINDOW)


# m017: the ids of the recallable messages within two places before and after the
# position ``{at}`` in conversation ``{row}.conversation_id``, and ``{row}.id``: the
# window of m004, with the position apart from the id because a BEFORE INSERT trigger
# sees -1 for an id SQLite has not chosen yet (it will be past every other id).
_WINDOW_AT = """
    SELECT {row}.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = {row}.conversation_id AND id < {at}
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = {row}.conversation_id AND id > {at}
        ORDER BY id LIMIT 2)
"""
_NEW_POSITION = "(CASE WHEN new.id < 0 THEN 9223372036854775807 ELSE new.id END)"


def _unindex_window(row: str, at: str) -> str:
    """Take the window's rows out of ``messages_fts`` as the view shows them now: an
    external-content index deletes a row by being told the words it indexed."""
    window = _WINDOW_AT.format(row=row, at=at)
    return f"""
        INSERT INTO messages_fts (messages_fts, rowid, content, context)
            SELECT 'delete', id, content, context FROM message_recall_rows
            WHERE id IN ({window});
    """


def _index_window(row: str) -> str:
    window = _WINDOW_AT.format(row=row, at=f"{row}.id")
    return f"""
        INSERT INTO messages_fts (rowid, content, context)
            SELECT id, content, context FROM message_recall_rows WHERE id IN ({window});
    """


_RECALL_CHANGES = """
    WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
        OR old.content != new.content OR old.hidden != new.hidden
"""


@migrations()
def m017_recall_index_without_its_copy(db) -> None:
    """``messages_fts`` indexes what ``message_recall_rows`` shows and keeps no copy of
    it (issue 39 G11): its ``messages_fts_content`` held each message's text and its
    four neighbours' again, 5.0 GB of a 7.4 GB profile. It becomes an external-content
    table over the view; the words it indexes, and so every ranking, are the same.

    FTS5 deletes an external-content row by the words it indexed, which the view shows
    only until the change: each trigger now comes in two, a BEFORE trigger taking the
    window of rows the change touches out of the index while the view still shows their
    old text, and the AFTER trigger of m010 putting them back as they now read. The index
    is rebuilt from the view here (the old copy's pages are free for the profile to reuse;
    the file shrinks only by a VACUUM). PostgreSQL's ``message_recall`` is the rows' text,
    which its tsvector column indexes: nothing changes there.
    """
    if is_postgres(db):
        return
    for trigger in ("messages_fts_insert", "messages_fts_update", "messages_fts_delete"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE messages_fts")
    db.execute(
        """
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            content, context,
            content='message_recall_rows', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )"""
    )
    db.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_insert_before BEFORE INSERT ON messages BEGIN
            {_unindex_window("new", _NEW_POSITION)}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            {_index_window("new")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_update_before
        BEFORE UPDATE OF content, status, hidden ON messages {_RECALL_CHANGES}
        BEGIN
            {_unindex_window("old", "old.id")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_update
        AFTER UPDATE OF content, status, hidden ON messages {_RECALL_CHANGES}
        BEGIN
            DELETE FROM message_embeddings
            WHERE message_id = new.id
                AND (old.content != new.content OR old.hidden != new.hidden);
            {_index_window("new")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_delete_before BEFORE DELETE ON messages BEGIN
            {_unindex_window("old", "old.id")}
        END"""
    )
    db.execute(
        f"""
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            DELETE FROM message_embeddings WHERE message_id = old.id;
            {_index_window("old")}
        END"""
    )


@migrations()
def m018_fts5_words_and_kept_statistics(db) -> None:
    """PostgreSQL's full-text columns hold FTS5's words (unicode61, porter), and BM25's
    statistics (row count, total length, rows per word) are kept as rows change
    instead of counted by every search (issue 41 item 2). SQLite's FTS5 has both."""
    if not is_postgres(db):
        return
    from acai_desktop.core.store.postgres import schema_parts as parts

    _run(db, parts.FTS5_WORDS, parts.FULL_TEXT_STATISTICS)
    for table, first, second, columns in parts.FULL_TEXT_COLUMNS:
        _run(db, parts.fts5_words_in(table, first, second, columns, replacing=True))


@migrations()
def m019_postgres_without_sqlite_functions(db) -> None:
    """PostgreSQL's baseline re-created SQLite's functions for the shared SQL; the store's
    SQL now names the operations that differ (store/dialect.py) instead of calling them,
    and they go. SQLite keeps its own functions: nothing changes there."""
    if is_postgres(db):
        _run(
            db,
            "DROP AGGREGATE group_concat(anyelement)",
            "DROP AGGREGATE group_concat(text, text)",
            "DROP FUNCTION acai_concat_step(text, anyelement)",
            "DROP FUNCTION acai_concat_step(text, text, text)",
            "DROP FUNCTION julianday(text)",
            "DROP FUNCTION max(anycompatible, anycompatible)",
            "DROP FUNCTION min(anycompatible, anycompatible)",
            "DROP FUNCTION instr(text, text)",
            "DROP FUNCTION json_extract(text, text)",
            "DROP FUNCTION json(text)",
            "DROP FUNCTION json_set(text, text, text)",
            "DROP FUNCTION date(text)",
            "DROP FUNCTION date(text, text)",
        )


# m020: PostgreSQL's 0/1 flags (table, column, default) and ISO-text times (table, column).
M020_FLAGS = (
    ("conversations", "temporary", False),
    ("conversations", "title_auto", False),
    ("conversations", "pinned", False),
    ("memories", "pinned", False),
    ("memories", "user_edited", False),
    ("messages", "hidden", False),
    ("messages", "selected", True),
    ("documents", "attachment", False),
    ("jobs", "retryable", True),
)
M020_TIMES = (
    ("conversations", "created_at"),
    ("conversations", "updated_at"),
    ("memories", "created_at"),
    ("memories", "updated_at"),
    ("memories", "last_used_at"),
    ("messages", "created_at"),
    ("memory_events", "at"),
    ("memory_write_keys", "at"),
    ("memory_suggestions", "created_at"),
    ("memory_suggestions", "decided_at"),
    ("jobs", "created_at"),
    ("jobs", "updated_at"),
    ("jobs", "run_after"),
    ("paused_job_kinds", "paused_at"),
    ("documents", "added_at"),
    ("documents", "indexed_at"),
    ("projects", "created_at"),
    ("projects", "updated_at"),
    ("profile_instructions", "updated_at"),
)
# What uses those columns, made again over the new types. ``recallable_messages`` is
# made with every message column: PostgreSQL expanded its ``m.*`` at the baseline,
# so it lacked the columns added after (``usage``, ``sent_content``).
_OVER_BOOLEANS = """
CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m WHERE
    m.role IN ('user', 'assistant') AND m.status IN ('complete', 'stopped')
    AND m.content != ''
    AND NOT (SELECT c.temporary FROM conversations AS c WHERE c.id = m.conversation_id)
    AND NOT m.hidden;

CREATE VIEW message_recall_rows AS
SELECT r.id, r.content, coalesce((
    SELECT string_agg(around.content, ' ') FROM (
        (SELECT content FROM recallable_messages
         WHERE conversation_id = r.conversation_id AND id < r.id ORDER BY id DESC LIMIT 2)
        UNION ALL
        (SELECT content FROM recallable_messages
         WHERE conversation_id = r.conversation_id AND id > r.id ORDER BY id LIMIT 2)
    ) AS around), '') AS context
FROM recallable_messages AS r;

CREATE OR REPLACE FUNCTION acai_message_parent_default() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.parent_id IS NULL THEN
        NEW.parent_id := (SELECT max(p.id) FROM messages AS p
            WHERE p.conversation_id = NEW.conversation_id AND p.id < NEW.id
                AND NOT p.hidden);
    END IF;
    RETURN NEW;
END $$;

CREATE INDEX documents_by_conversation ON documents(conversation_id) WHERE attachment;
CREATE TRIGGER messages_recall_update AFTER UPDATE OF content, status, hidden ON messages
    FOR EACH ROW EXECUTE FUNCTION acai_messages_recall();
"""


@migrations()
def m020_postgres_booleans_and_times(db) -> None:
    """PostgreSQL's 0/1 flags become boolean and its ISO-text times timestamptz (its
    connection reads them back as SQLite gives them: postgres/database.py); what uses
    them is made again. SQLite's flags and times stay as they are."""
    if not is_postgres(db):
        return
    _run(
        db,
        "DROP VIEW message_recall_rows; DROP VIEW recallable_messages; "
        "DROP INDEX documents_by_conversation; DROP TRIGGER messages_recall_update ON messages",
    )
    for table, column, default in M020_FLAGS:
        _run(
            db,
            f"ALTER TABLE {table} ALTER COLUMN {column} DROP DEFAULT, "
            f"ALTER COLUMN {column} TYPE boolean USING {column} <> 0, "
            f"ALTER COLUMN {column} SET DEFAULT {str(default).upper()}",
        )
    for table, column in M020_TIMES:
        _run(
            db,
            f"ALTER TABLE {table} ALTER COLUMN {column} TYPE timestamptz "
            f"USING CAST(NULLIF({column}, '') AS timestamptz)",
        )
    _run(db, _OVER_BOOLEANS)


@migrations()
def m021_local_only(db) -> None:
    """Local only (issue 42, item 4): a project, chat, memory or document the user keeps
    off remote models. ``local_only`` on each: a marked item never enters the prompt of a
    model that runs elsewhere (core/turns/privacy.py), and what a marked chat or
    project holds is kept with it (core/store/local_only.py). Every existing row is
    unmarked: nothing changes until the user marks something."""
    from acai_desktop.core.store.schema_model import FLAG, Column, Index

    for table in ("projects", "conversations", "memories", "documents"):
        _add(db, table, Column("local_only", FLAG, required=True, default=False))
    _run(
        db,
        Index("memories_local_only", "memories", "id", where="local_only").ddl(),
        Index("documents_local_only", "documents", "id", where="local_only").ddl(),
    )


@migrations()
def m022_facts_as_of(db) -> None:
    """Facts that age (issue 43, item 1): ``memories.as_of``, when the memory was last
    said or confirmed (a restatement in chat, the user's "Still true", an edit). NULL:
    as of when it was learned (``created_at``); core/memory/fact_ages.py reads both."""
    from acai_desktop.core.store.schema_model import TIME, Column

    _add(db, "memories", Column("as_of", TIME))
