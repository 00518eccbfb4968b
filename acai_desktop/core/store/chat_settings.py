"""A chat's own model settings on disk: ``conversations.model_settings`` (JSON; NULL:
the profile's). See m012 and core.conversations.chat_settings."""

from __future__ import annotations

from acai_desktop.core.conversations.chat_settings import ChatSettings
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import fetch_conversation


def chat_settings(db: Database, conversation_id: int) -> ChatSettings:
    """The chat's own settings (all unset when it follows the profile's)."""
    fetch_conversation(db, conversation_id)  # NotFoundError for a deleted chat
    row = db.execute(
        "SELECT model_settings FROM conversations WHERE id = ?", [conversation_id]
    ).fetchone()
    return ChatSettings.from_json(row[0])


def save_chat_settings(db: Database, conversation_id: int, settings: ChatSettings) -> None:
    """Set the chat's own settings; unset ones follow the profile's."""
    with db.atomic():
        fetch_conversation(db, conversation_id)
        db.execute(
            "UPDATE conversations SET model_settings = ? WHERE id = ?",
            [settings.to_json(), conversation_id],
        )
