"""Custom instructions on disk: the profile's (one row of ``profile_instructions``) and a
chat's override (``conversations.instructions``, NULL: the profile's). See m011."""

from __future__ import annotations

from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversations.custom_instructions import (
    CustomInstructions,
    InstructionsScope,
    UsedInstructions,
)
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.projects import project_instructions


def profile_instructions(db: Database) -> CustomInstructions:
    row = db.execute("SELECT respond, about FROM profile_instructions WHERE id = 1").fetchone()
    return CustomInstructions(*row) if row else CustomInstructions()


def save_profile_instructions(db: Database, instructions: CustomInstructions) -> None:
    with db.atomic():
        db.execute(
            "INSERT INTO profile_instructions (id, respond, about, updated_at) "
            "VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET respond = excluded.respond, "
            "about = excluded.about, updated_at = excluded.updated_at",
            [instructions.respond, instructions.about, now_iso()],
        )


def chat_instructions(db: Database, conversation_id: int) -> CustomInstructions | None:
    """The chat's override, or None when it follows the profile's."""
    fetch_conversation(db, conversation_id)  # NotFoundError for a deleted chat
    row = db.execute(
        "SELECT instructions FROM conversations WHERE id = ?", [conversation_id]
    ).fetchone()
    return CustomInstructions.from_json(row[0])


def save_chat_instructions(
    db: Database, conversation_id: int, instructions: CustomInstructions | None
) -> None:
    """Set the chat's override; None goes back to the profile's."""
    with db.atomic():
        fetch_conversation(db, conversation_id)
        db.execute(
            "UPDATE conversations SET instructions = ? WHERE id = ?",
            [None if instructions is None else instructions.to_json(), conversation_id],
        )


def instructions_for_chat(db: Database, conversation_id: int) -> UsedInstructions | None:
    """What a turn in this chat carries: its override, else its project's, else the
    profile's; None when that is empty (an override left empty means "none in this
    chat", a project's left empty "none in this project")."""
    override = chat_instructions(db, conversation_id)
    if override is not None:
        return None if override.empty else UsedInstructions(override, InstructionsScope.CHAT)
    project_id = fetch_conversation(db, conversation_id).project_id
    if project_id is not None:
        project = project_instructions(db, project_id)
        if project is not None:
            return None if project.empty else UsedInstructions(project, InstructionsScope.PROJECT)
    mine = profile_instructions(db)
    return None if mine.empty else UsedInstructions(mine, InstructionsScope.PROFILE)
