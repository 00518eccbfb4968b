"""The schema that the migrations named below leave, one statement each, in the order
SQLite keeps them: a fresh profile's database is made from it in one step
(``migration_runner.py``). Written by ``python -m tests.support.schema_baseline`` from
the migrations, never by hand; ``tests/core/test_schema_baseline.py`` checks that it
makes the schema the migrations make."""

from acai_desktop.core.store.migration_runner import Baseline

BASELINE = Baseline(
    migrations=(
        "m001_initial",
        "m002_durable_jobs",
        "m003_memories_by_created",
        "m004_episodic_messages",
        "m005_drop_settings",
        "m006_memory_suggestions",
        "m007_documents",
        "m008_job_interruptions",
        "m009_imported_conversations",
        "m010_message_versions",
        "m011_chat_titles_pins_and_instructions",
        "m012_chat_settings_and_token_usage",
        "m013_projects",
        "m014_chat_attachments",
        "m015_messages_as_sent",
        "m016_idempotent_recall_window",
        "m017_recall_index_without_its_copy",
    ),
    statements=(
        """CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            temporary INTEGER NOT NULL DEFAULT 0
        , source_id TEXT, title_auto INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0, instructions TEXT, model_settings TEXT, project_id INTEGER REFERENCES projects(id))""",
        """CREATE TABLE messages (
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
        , author TEXT, source_id TEXT, parent_id INTEGER REFERENCES messages(id), selected INTEGER NOT NULL DEFAULT 1, hidden INTEGER NOT NULL DEFAULT 0, instructions TEXT, usage TEXT, sent_content TEXT)""",
        """CREATE INDEX messages_by_conversation ON messages(conversation_id, id)""",
        """CREATE TABLE memories (
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
        , project_id INTEGER REFERENCES projects(id))""",
        """CREATE INDEX memories_by_status ON memories(status, kind)""",
        """CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, category,
            content='memories', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, content, category)
            VALUES (new.id, new.content, coalesce(new.category, ''));
        END""",
        """CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, content, category)
            VALUES ('delete', old.id, old.content, coalesce(old.category, ''));
        END""",
        """CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, category ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, content, category)
            VALUES ('delete', old.id, old.content, coalesce(old.category, ''));
            INSERT INTO memories_fts(rowid, content, category)
            VALUES (new.id, new.content, coalesce(new.category, ''));
        END""",
        """CREATE TABLE memory_sources (
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            message_id INTEGER NOT NULL REFERENCES messages(id),
            PRIMARY KEY (memory_id, message_id)
        )""",
        """CREATE INDEX memory_sources_by_message ON memory_sources(message_id)""",
        """CREATE TABLE memory_events (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            at TEXT NOT NULL,
            actor TEXT NOT NULL CHECK (actor IN
                ('user', 'summary_processor', 'critical_info_processor', 'system')),
            action TEXT NOT NULL,
            before TEXT,
            after TEXT
        )""",
        """CREATE INDEX memory_events_by_memory ON memory_events(memory_id, id)""",
        """CREATE TABLE jobs (
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
        , wait_for_message_id INTEGER, revivals INTEGER NOT NULL DEFAULT 0, retryable INTEGER NOT NULL DEFAULT 1, interruptions INTEGER NOT NULL DEFAULT 0)""",
        """CREATE INDEX jobs_by_status ON jobs(status, id)""",
        """CREATE TABLE memory_write_keys (
            key TEXT PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            at TEXT NOT NULL
        )""",
        """CREATE INDEX memories_by_created ON memories(created_at)""",
        """CREATE INDEX messages_by_date ON messages(created_at)""",
        """CREATE TABLE message_embeddings (
            message_id INTEGER PRIMARY KEY,
            embedding BLOB NOT NULL,
            embedding_model TEXT NOT NULL
        )""",
        """CREATE TABLE "answer_sources" (
            message_id INTEGER NOT NULL REFERENCES messages(id),
            memory_id INTEGER REFERENCES memories(id),
            recalled_message_id INTEGER REFERENCES messages(id),
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            reasons TEXT NOT NULL,
            PRIMARY KEY (message_id, rank),
            CHECK ((memory_id IS NULL) != (recalled_message_id IS NULL))
        )""",
        """CREATE INDEX answer_sources_by_memory ON answer_sources(memory_id)""",
        """CREATE INDEX answer_sources_by_recalled_message ON answer_sources(recalled_message_id)""",
        """CREATE TABLE memory_suggestions (
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
            decided_at TEXT, via TEXT,
            UNIQUE (message_id, normalised)
        )""",
        """CREATE INDEX memory_suggestions_by_status ON memory_suggestions(status, id)""",
        """CREATE TABLE documents (
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
        , project_id INTEGER REFERENCES projects(id), attachment INTEGER NOT NULL DEFAULT 0, conversation_id INTEGER REFERENCES conversations(id) ON DELETE CASCADE)""",
        """CREATE TABLE chunks (
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
        )""",
        """CREATE VIRTUAL TABLE chunks_fts USING fts5(
            content, heading,
            content='chunks', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, content, heading)
            VALUES (new.id, new.content, new.heading);
        END""",
        """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, content, heading)
            VALUES ('delete', old.id, old.content, old.heading);
        END""",
        """CREATE TRIGGER chunks_fts_update AFTER UPDATE OF content, heading ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, content, heading)
            VALUES ('delete', old.id, old.content, old.heading);
            INSERT INTO chunks_fts(rowid, content, heading)
            VALUES (new.id, new.content, new.heading);
        END""",
        """CREATE TABLE document_scopes (
            conversation_id INTEGER PRIMARY KEY
                REFERENCES conversations(id) ON DELETE CASCADE,
            mode TEXT NOT NULL CHECK (mode IN ('all', 'some', 'none'))
        )""",
        """CREATE TABLE conversation_documents (
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            PRIMARY KEY (conversation_id, document_id)
        )""",
        """CREATE TABLE answer_evidence (
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
        )""",
        """CREATE INDEX answer_evidence_by_chunk ON answer_evidence(chunk_id)""",
        """CREATE INDEX answer_evidence_by_document ON answer_evidence(document_id)""",
        """CREATE UNIQUE INDEX conversations_by_source ON conversations(source_id) WHERE source_id IS NOT NULL""",
        """CREATE UNIQUE INDEX messages_by_source ON messages(source_id) WHERE source_id IS NOT NULL""",
        """CREATE TABLE paused_job_kinds (
            kind TEXT PRIMARY KEY,
            paused_at TEXT NOT NULL
        )""",
        """CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id)""",
        """CREATE TRIGGER messages_parent_default AFTER INSERT ON messages
        WHEN new.parent_id IS NULL BEGIN
            UPDATE messages SET parent_id = (
                SELECT max(p.id) FROM messages AS p
                WHERE p.conversation_id = new.conversation_id AND p.id < new.id
                    AND p.hidden = 0)
            WHERE id = new.id;
        END""",
        """CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m WHERE 
    m.role IN ('user', 'assistant') AND m.status IN ('complete', 'stopped')
    AND m.content != ''
    AND (SELECT c.temporary FROM conversations AS c WHERE c.id = m.conversation_id) = 0
 AND m.hidden = 0""",
        """CREATE VIEW message_recall_rows AS
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
        FROM recallable_messages AS r""",
        """CREATE TABLE profile_instructions (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            respond TEXT NOT NULL DEFAULT '',
            about TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE projects (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            instructions TEXT,
            default_model TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        """CREATE INDEX conversations_by_project ON conversations(project_id)""",
        """CREATE INDEX memories_by_project ON memories(project_id)""",
        """CREATE INDEX documents_by_conversation ON documents(conversation_id) WHERE attachment = 1""",
        """CREATE VIRTUAL TABLE messages_fts USING fts5(
            content, context,
            content='message_recall_rows', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER messages_fts_insert_before BEFORE INSERT ON messages BEGIN
            
        INSERT INTO messages_fts (messages_fts, rowid, content, context)
            SELECT 'delete', id, content, context FROM message_recall_rows
            WHERE id IN (
    SELECT new.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id < (CASE WHEN new.id < 0 THEN 9223372036854775807 ELSE new.id END)
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id > (CASE WHEN new.id < 0 THEN 9223372036854775807 ELSE new.id END)
        ORDER BY id LIMIT 2)
);
    
        END""",
        """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            
        INSERT INTO messages_fts (rowid, content, context)
            SELECT id, content, context FROM message_recall_rows WHERE id IN (
    SELECT new.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id < new.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id > new.id
        ORDER BY id LIMIT 2)
);
    
        END""",
        """CREATE TRIGGER messages_fts_update_before
        BEFORE UPDATE OF content, status, hidden ON messages 
    WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
        OR old.content != new.content OR old.hidden != new.hidden

        BEGIN
            
        INSERT INTO messages_fts (messages_fts, rowid, content, context)
            SELECT 'delete', id, content, context FROM message_recall_rows
            WHERE id IN (
    SELECT old.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id < old.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id > old.id
        ORDER BY id LIMIT 2)
);
    
        END""",
        """CREATE TRIGGER messages_fts_update
        AFTER UPDATE OF content, status, hidden ON messages 
    WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
        OR old.content != new.content OR old.hidden != new.hidden

        BEGIN
            DELETE FROM message_embeddings
            WHERE message_id = new.id
                AND (old.content != new.content OR old.hidden != new.hidden);
            
        INSERT INTO messages_fts (rowid, content, context)
            SELECT id, content, context FROM message_recall_rows WHERE id IN (
    SELECT new.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id < new.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = new.conversation_id AND id > new.id
        ORDER BY id LIMIT 2)
);
    
        END""",
        """CREATE TRIGGER messages_fts_delete_before BEFORE DELETE ON messages BEGIN
            
        INSERT INTO messages_fts (messages_fts, rowid, content, context)
            SELECT 'delete', id, content, context FROM message_recall_rows
            WHERE id IN (
    SELECT old.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id < old.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id > old.id
        ORDER BY id LIMIT 2)
);
    
        END""",
        """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            DELETE FROM message_embeddings WHERE message_id = old.id;
            
        INSERT INTO messages_fts (rowid, content, context)
            SELECT id, content, context FROM message_recall_rows WHERE id IN (
    SELECT old.id
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id < old.id
        ORDER BY id DESC LIMIT 2)
    UNION SELECT id FROM (
        SELECT id FROM recallable_messages
        WHERE conversation_id = old.conversation_id AND id > old.id
        ORDER BY id LIMIT 2)
);
    
        END""",
    ),
)
