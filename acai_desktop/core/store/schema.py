"""The database schema as it is now, described once for both engines.

A fresh database, SQLite or PostgreSQL, is made from this description in one step
(:func:`create_schema`), and the migration history (``migrations.py``) is recorded as
applied. What the engines really do differently — full text, the recall index, the
trigger that gives a message its parent, NOTIFY — are named parts of each engine
(``sqlite_schema.py``, ``postgres/schema_parts.py``). ``tests/core/test_schema.py``
proves that a database made here and one upgraded from the oldest released schema are
the same, on each engine.

Columns are listed in the order the history added them (PostgreSQL's ``SELECT *`` and
SQLite's ``PRAGMA table_info`` show that order). A new migration changes this file too.
"""

from __future__ import annotations

from acai_desktop.core.store.dialect import POSTGRESQL
from acai_desktop.core.store.schema_model import (
    BLOB,
    FLAG,
    INTEGER,
    JSON,
    REAL,
    TEXT,
    TIME,
    Column,
    Index,
    Table,
    engine_of,
)


def _id() -> Column:
    return Column("id", INTEGER, identity=True)


def _local_only() -> Column:
    # Kept off remote models' prompts (m021, core/store/local_only.py).
    return Column("local_only", FLAG, required=True, default=False)


def _in(column: str, *values: str) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


_NO_NULLS = {"required": True}

TABLES = (
    Table(
        "projects",
        (
            _id(),
            Column("name", TEXT, **_NO_NULLS),
            Column("instructions", JSON),
            Column("default_model", TEXT),
            Column("created_at", TIME, **_NO_NULLS),
            Column("updated_at", TIME, **_NO_NULLS),
            _local_only(),
        ),
    ),
    Table(
        "conversations",
        (
            _id(),
            Column("title", TEXT, required=True, default=""),
            Column("created_at", TIME, **_NO_NULLS),
            Column("updated_at", TIME, **_NO_NULLS),
            Column("temporary", FLAG, required=True, default=False),
            Column("source_id", TEXT),
            Column("title_auto", FLAG, required=True, default=False),
            Column("pinned", FLAG, required=True, default=False),
            Column("instructions", JSON),
            Column("model_settings", JSON),
            Column("project_id", INTEGER, references="projects(id)"),
            _local_only(),
        ),
    ),
    Table(
        "memories",
        (
            _id(),
            Column("kind", TEXT, required=True, check=_in("kind", "fact", "summary", "note")),
            Column("content", TEXT, **_NO_NULLS),
            Column("category", TEXT),
            Column("confidence", REAL, required=True, default=1.0),
            Column("importance", REAL, required=True, default=0.5),
            Column("pinned", FLAG, required=True, default=False),
            Column(
                "status",
                TEXT,
                required=True,
                default="active",
                check=_in("status", "active", "superseded", "forgotten", "conflict", "temporary"),
            ),
            Column(
                "origin",
                TEXT,
                required=True,
                check=_in("origin", "user", "critical_info", "summary"),
            ),
            Column("user_edited", FLAG, required=True, default=False),
            Column("superseded_by", INTEGER, references="memories(id)"),
            Column("conversation_id", INTEGER, references="conversations(id)"),
            Column("created_at", TIME, **_NO_NULLS),
            Column("updated_at", TIME, **_NO_NULLS),
            Column("last_used_at", TIME),
            Column("use_count", INTEGER, required=True, default=0),
            Column("embedding", BLOB),
            Column("embedding_model", TEXT),
            Column("meta", TEXT),
            Column("project_id", INTEGER, references="projects(id)"),
            _local_only(),
            # Last said or confirmed (m022; NULL: as of created_at).
            Column("as_of", TIME),
        ),
    ),
    Table(
        "messages",
        (
            _id(),
            Column("conversation_id", INTEGER, required=True, references="conversations(id)"),
            Column("role", TEXT, required=True, check=_in("role", "system", "user", "assistant")),
            Column("content", TEXT, **_NO_NULLS),
            Column(
                "status",
                TEXT,
                required=True,
                default="complete",
                check=_in("status", "complete", "streaming", "stopped", "error"),
            ),
            Column("model", TEXT),
            Column("tokens", INTEGER),
            Column("folded_into", INTEGER, references="memories(id)"),
            Column("error", TEXT),
            Column("plan", TEXT),
            Column("created_at", TIME, **_NO_NULLS),
            Column("author", TEXT),
            Column("source_id", TEXT),
            Column("parent_id", INTEGER, references="messages(id)"),
            Column("selected", FLAG, required=True, default=True),
            Column("hidden", FLAG, required=True, default=False),
            Column("instructions", TEXT),
            Column("usage", JSON),
            Column("sent_content", TEXT),
        ),
    ),
    Table(
        "memory_sources",
        (
            Column("memory_id", INTEGER, required=True, references="memories(id)"),
            Column("message_id", INTEGER, required=True, references="messages(id)"),
        ),
        ("PRIMARY KEY (memory_id, message_id)",),
    ),
    Table(
        "memory_events",
        (
            _id(),
            Column("memory_id", INTEGER, required=True, references="memories(id)"),
            Column("at", TIME, **_NO_NULLS),
            Column(
                "actor",
                TEXT,
                required=True,
                check=_in(
                    "actor", "user", "summary_processor", "critical_info_processor", "system"
                ),
            ),
            Column("action", TEXT, **_NO_NULLS),
            Column("before", TEXT),
            Column("after", TEXT),
        ),
    ),
    Table(
        "jobs",
        (
            _id(),
            Column("kind", TEXT, **_NO_NULLS),
            Column("payload", TEXT, **_NO_NULLS),
            Column("conversation_id", INTEGER),
            Column(
                "status",
                TEXT,
                required=True,
                default="pending",
                check=_in("status", "pending", "running", "done", "failed"),
            ),
            Column("attempts", INTEGER, required=True, default=0),
            Column("last_error", TEXT),
            Column("run_after", TIME),
            Column("created_at", TIME, **_NO_NULLS),
            Column("updated_at", TIME, **_NO_NULLS),
            Column("wait_for_message_id", INTEGER),
            Column("revivals", INTEGER, required=True, default=0),
            Column("retryable", FLAG, required=True, default=True),
            Column("interruptions", INTEGER, required=True, default=0),
        ),
    ),
    Table(
        "memory_write_keys",
        (
            Column("key", TEXT, primary_key=True),
            Column("memory_id", INTEGER, required=True, references="memories(id)"),
            Column("at", TIME, **_NO_NULLS),
        ),
    ),
    Table(
        "message_embeddings",
        (
            Column("message_id", INTEGER, primary_key=True),
            Column("embedding", BLOB, **_NO_NULLS),
            Column("embedding_model", TEXT, **_NO_NULLS),
        ),
    ),
    Table(
        "answer_sources",
        (
            Column("message_id", INTEGER, required=True, references="messages(id)"),
            Column("memory_id", INTEGER, references="memories(id)"),
            Column("recalled_message_id", INTEGER, references="messages(id)"),
            Column("rank", INTEGER, **_NO_NULLS),
            Column("score", REAL, **_NO_NULLS),
            Column("reasons", TEXT, **_NO_NULLS),
        ),
        (
            "PRIMARY KEY (message_id, rank)",
            "CHECK ((memory_id IS NULL) != (recalled_message_id IS NULL))",
        ),
    ),
    Table(
        "memory_suggestions",
        (
            _id(),
            Column(
                "message_id",
                INTEGER,
                required=True,
                references="messages(id)",
                on_delete="CASCADE",
            ),
            Column("conversation_id", INTEGER),
            Column("content", TEXT, **_NO_NULLS),
            Column("normalised", TEXT, **_NO_NULLS),
            Column("category", TEXT, required=True, default="Other"),
            Column("confidence", REAL, required=True, default=1.0),
            Column(
                "status",
                TEXT,
                required=True,
                default="pending",
                check=_in("status", "pending", "accepted", "dismissed"),
            ),
            Column("memory_id", INTEGER, references="memories(id)", on_delete="SET NULL"),
            Column("created_at", TIME, **_NO_NULLS),
            Column("decided_at", TIME),
            Column("via", TEXT),
        ),
        ("UNIQUE (message_id, normalised)",),
    ),
    Table(
        "documents",
        (
            _id(),
            Column("path", TEXT, required=True, unique=True),
            Column("name", TEXT, **_NO_NULLS),
            Column("size", INTEGER, required=True, default=0),
            Column("sha256", TEXT),
            Column("mtime", REAL),
            Column("kind", TEXT, **_NO_NULLS),
            Column(
                "status",
                TEXT,
                required=True,
                default="queued",
                check=_in("status", "queued", "indexing", "ready", "error"),
            ),
            Column("error", TEXT),
            Column("chunk_count", INTEGER, required=True, default=0),
            Column("page_count", INTEGER, required=True, default=0),
            Column("added_at", TIME, **_NO_NULLS),
            Column("indexed_at", TIME),
            Column("project_id", INTEGER, references="projects(id)"),
            Column("attachment", FLAG, required=True, default=False),
            Column("conversation_id", INTEGER, references="conversations(id)", on_delete="CASCADE"),
            _local_only(),
        ),
    ),
    Table(
        "chunks",
        (
            _id(),
            Column(
                "document_id",
                INTEGER,
                required=True,
                references="documents(id)",
                on_delete="CASCADE",
            ),
            Column("ordinal", INTEGER, **_NO_NULLS),
            Column("page", INTEGER),
            Column("heading", TEXT, required=True, default=""),
            Column("content", TEXT, **_NO_NULLS),
            Column("token_count", INTEGER, **_NO_NULLS),
            Column("embedding", BLOB),
            Column("embedding_model", TEXT),
        ),
        ("UNIQUE (document_id, ordinal)",),
    ),
    Table(
        "document_scopes",
        (
            Column(
                "conversation_id",
                INTEGER,
                primary_key=True,
                references="conversations(id)",
                on_delete="CASCADE",
            ),
            Column("mode", TEXT, required=True, check=_in("mode", "all", "some", "none")),
        ),
    ),
    Table(
        "conversation_documents",
        (
            Column(
                "conversation_id",
                INTEGER,
                required=True,
                references="conversations(id)",
                on_delete="CASCADE",
            ),
            Column(
                "document_id",
                INTEGER,
                required=True,
                references="documents(id)",
                on_delete="CASCADE",
            ),
        ),
        ("PRIMARY KEY (conversation_id, document_id)",),
    ),
    Table(
        "answer_evidence",
        (
            Column(
                "message_id",
                INTEGER,
                required=True,
                references="messages(id)",
                on_delete="CASCADE",
            ),
            Column("rank", INTEGER, **_NO_NULLS),
            Column("chunk_id", INTEGER, references="chunks(id)", on_delete="SET NULL"),
            Column("document_id", INTEGER, references="documents(id)", on_delete="SET NULL"),
            Column("document_name", TEXT, **_NO_NULLS),
            Column("page", INTEGER),
            Column("score", REAL, **_NO_NULLS),
            Column("reasons", TEXT, **_NO_NULLS),
            Column("snippet", TEXT, **_NO_NULLS),
        ),
        ("PRIMARY KEY (message_id, rank)",),
    ),
    Table(
        "paused_job_kinds",
        (Column("kind", TEXT, primary_key=True), Column("paused_at", TIME, **_NO_NULLS)),
    ),
    Table(
        "profile_instructions",
        (
            Column("id", INTEGER, primary_key=True, check="id = 1"),
            Column("respond", TEXT, required=True, default=""),
            Column("about", TEXT, required=True, default=""),
            Column("updated_at", TIME, **_NO_NULLS),
        ),
    ),
)

INDEXES = (
    Index("conversations_by_source", "conversations", "source_id", True, "source_id IS NOT NULL"),
    Index("conversations_by_project", "conversations", "project_id"),
    Index("memories_by_status", "memories", "status, kind"),
    Index("memories_by_created", "memories", "created_at"),
    Index("memories_by_project", "memories", "project_id"),
    Index("messages_by_conversation", "messages", "conversation_id, id"),
    Index("messages_by_date", "messages", "created_at"),
    Index("messages_by_parent", "messages", "conversation_id, parent_id"),
    Index("messages_by_source", "messages", "source_id", True, "source_id IS NOT NULL"),
    Index("memory_sources_by_message", "memory_sources", "message_id"),
    Index("memory_events_by_memory", "memory_events", "memory_id, id"),
    Index("jobs_by_status", "jobs", "status, id"),
    Index("answer_sources_by_memory", "answer_sources", "memory_id"),
    Index("answer_sources_by_recalled_message", "answer_sources", "recalled_message_id"),
    Index("memory_suggestions_by_status", "memory_suggestions", "status, id"),
    Index("documents_by_conversation", "documents", "conversation_id", where_flag="attachment"),
    Index("answer_evidence_by_chunk", "answer_evidence", "chunk_id"),
    Index("answer_evidence_by_document", "answer_evidence", "document_id"),
    # Most profiles mark nothing: "is anything local only?" reads an empty index.
    Index("memories_local_only", "memories", "id", where="local_only"),
    Index("documents_local_only", "documents", "id", where="local_only"),
)


def schema_statements(engine: str) -> list[str]:
    """Every statement that makes the schema on ``engine``, in order."""
    if engine == POSTGRESQL:
        from acai_desktop.core.store.postgres import schema_parts as parts
    else:
        from acai_desktop.core.store import sqlite_schema as parts
    return [
        *parts.BEFORE_TABLES,
        *(table.ddl(engine) for table in TABLES),
        *(index.ddl(engine) for index in INDEXES),
        *parts.RECALL,
        *parts.MESSAGE_PARENT_DEFAULT,
        *parts.FULL_TEXT,
        *parts.NOTIFY,
    ]


def create_schema(db) -> None:
    """Make the whole schema in ``db``, an empty database, in the caller's transaction."""
    engine = engine_of(db)
    if engine == POSTGRESQL:  # one batch, one round trip to the server
        statements = (statement.strip().rstrip(";") for statement in schema_statements(engine))
        db.connection.execute(";\n".join(statements))
    else:
        for statement in schema_statements(engine):
            db.execute(statement)
