"""A profile as an older ACAI Desktop left it: the schema before the episodic recall
migration (m004), with some conversations, so opening it must update the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.migrations import migrations

AT = "2026-01-01T00:00:00+00:00"


def old_profile(data_dir: Path, messages: int = 200) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "acai.sqlite3"
    connection = sqlite3.connect(path)
    db = Database(connection)
    migrations.apply(db, stop_before="m004_episodic_messages")
    for number in range(messages):
        conversation = number // 20 + 1
        if number % 20 == 0:
            connection.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, temporary) "
                "VALUES (?, ?, ?, ?, 0)",
                [conversation, f"Chat {conversation}", AT, AT],
            )
        connection.execute(
            "INSERT INTO messages (conversation_id, role, content, status, created_at) "
            "VALUES (?, ?, ?, 'complete', ?)",
            [conversation, ("user", "assistant")[number % 2], f"Message number {number}.", AT],
        )
    connection.commit()
    connection.close()
    return path
