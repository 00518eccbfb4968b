"""SQLite's own parts of the schema (``schema.py`` names them; PostgreSQL's are in
``postgres/schema_parts.py``): FTS5 indexes kept in step by triggers, the recall view
that joins a message's neighbours with ``group_concat``, the parent a message gets.

The present of what migrations m001, m007, m010 and m017 made; a migration that
changes one of these changes it here too (``tests/core/test_schema.py`` compares).
"""

from __future__ import annotations

BEFORE_TABLES: tuple[str, ...] = ()
NOTIFY: tuple[str, ...] = ()  # one process writes at a time; readers look again

# The messages episodic recall may bring back: the words of a finished turn (or of a
# stopped answer) on the shown path of an ordinary conversation (a temporary chat
# writes no memories; a deleted chat's messages are gone with it); and each with the
# text of the two recallable messages before and after it: what ``messages_fts`` indexes.
RECALL = (
    "CREATE VIEW recallable_messages AS SELECT m.* FROM messages AS m WHERE "
    "m.role IN ('user', 'assistant') AND m.status IN ('complete', 'stopped') "
    "AND m.content != '' "
    "AND (SELECT c.temporary FROM conversations AS c WHERE c.id = m.conversation_id) = 0 "
    "AND m.hidden = 0",
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
)

# A message inserted without a parent follows the end of the shown path.
MESSAGE_PARENT_DEFAULT = (
    """CREATE TRIGGER messages_parent_default AFTER INSERT ON messages
    WHEN new.parent_id IS NULL BEGIN
        UPDATE messages SET parent_id = (
            SELECT max(p.id) FROM messages AS p
            WHERE p.conversation_id = new.conversation_id AND p.id < new.id
                AND p.hidden = 0)
        WHERE id = new.id;
    END""",
)

_TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"


def _external_index(table: str, first: str, second: str, second_value: str) -> list[str]:
    """An external-content FTS5 index over ``table``'s two columns (the porter stemmer
    makes "prefer" match "preferred"), and the triggers that keep it in step."""
    index = f"{table}_fts"
    old = f"old.id, old.{first}, {second_value.format(row='old')}"
    new = f"new.id, new.{first}, {second_value.format(row='new')}"
    return [
        f"CREATE VIRTUAL TABLE {index} USING fts5({first}, {second}, "
        f"content='{table}', content_rowid='id', {_TOKENIZE})",
        f"CREATE TRIGGER {index}_insert AFTER INSERT ON {table} BEGIN "
        f"INSERT INTO {index}(rowid, {first}, {second}) VALUES ({new}); END",
        f"CREATE TRIGGER {index}_delete AFTER DELETE ON {table} BEGIN "
        f"INSERT INTO {index}({index}, rowid, {first}, {second}) VALUES ('delete', {old}); END",
        f"CREATE TRIGGER {index}_update AFTER UPDATE OF {first}, {second} ON {table} BEGIN "
        f"INSERT INTO {index}({index}, rowid, {first}, {second}) VALUES ('delete', {old}); "
        f"INSERT INTO {index}(rowid, {first}, {second}) VALUES ({new}); END",
    ]


# The recallable messages within two places before and after the position ``{at}`` in
# conversation ``{row}.conversation_id``, and ``{row}.id``: the rows whose indexed
# context a change of that message touches. The position is apart from the id because
# a BEFORE INSERT trigger sees -1 for an id SQLite has not chosen yet (it will be past
# every other id).
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
_RECALL_CHANGES = """
    WHEN old.status IN ('complete', 'stopped') OR new.status IN ('complete', 'stopped')
        OR old.content != new.content OR old.hidden != new.hidden
"""


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


# messages_fts indexes the recall view and keeps no copy of it; FTS5 deletes such a
# row by the words it indexed, which the view shows only until the change: a BEFORE
# trigger takes the window out while the view still shows the old text, the AFTER
# trigger puts it back as it now reads.
_MESSAGES_FULL_TEXT = (
    "CREATE VIRTUAL TABLE messages_fts USING fts5(content, context, "
    f"content='message_recall_rows', content_rowid='id', {_TOKENIZE})",
    "CREATE TRIGGER messages_fts_insert_before BEFORE INSERT ON messages BEGIN "
    f"{_unindex_window('new', _NEW_POSITION)} END",
    f"CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN {_index_window('new')} END",
    "CREATE TRIGGER messages_fts_update_before "
    f"BEFORE UPDATE OF content, status, hidden ON messages {_RECALL_CHANGES} "
    f"BEGIN {_unindex_window('old', 'old.id')} END",
    "CREATE TRIGGER messages_fts_update "
    f"AFTER UPDATE OF content, status, hidden ON messages {_RECALL_CHANGES} BEGIN "
    "DELETE FROM message_embeddings WHERE message_id = new.id "
    "AND (old.content != new.content OR old.hidden != new.hidden); "
    f"{_index_window('new')} END",
    "CREATE TRIGGER messages_fts_delete_before BEFORE DELETE ON messages BEGIN "
    f"{_unindex_window('old', 'old.id')} END",
    "CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN "
    "DELETE FROM message_embeddings WHERE message_id = old.id; "
    f"{_index_window('old')} END",
)

FULL_TEXT = (
    *_external_index("memories", "content", "category", "coalesce({row}.category, '')"),
    *_external_index("chunks", "content", "heading", "{row}.heading"),
    *_MESSAGES_FULL_TEXT,
)
