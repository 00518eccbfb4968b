"""The one-click fixes "Why didn't you use …?" offers, and applying one through the
service that owns the change: pin and restore (MemoryService), move a memory to this
chat's project or to every chat (ProjectService), a document likewise
(DocumentService), a keyword note (a note memory). Offering changes nothing; only
:func:`apply_fix`, on the user's click, does."""

from __future__ import annotations

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.projects.service import ProjectService
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.why_not.result import Fix, FixAction
from acai_desktop.core.why_not.words import keyword_note


def pin(memory_id: int) -> Fix:
    return Fix(FixAction.PIN, "Pin it (always in the prompt)", memory_id=memory_id)


def restore(memory_id: int, text: str | None = None) -> Fix:
    label = f"Restore “{_short(text)}”" if text else "Restore it"
    return Fix(FixAction.RESTORE, label, memory_id=memory_id)


def move_here(
    project_id: int,
    project_name: str,
    *,
    memory_id: int | None = None,
    document_id: int | None = None,
) -> Fix:
    return Fix(
        FixAction.MOVE_HERE,
        f"Move it to this chat's project, “{project_name}”",
        memory_id=memory_id,
        document_id=document_id,
        project_id=project_id,
    )


def every_chat(*, memory_id: int | None = None, document_id: int | None = None) -> Fix:
    return Fix(
        FixAction.EVERY_CHAT, "Use it in every chat", memory_id=memory_id, document_id=document_id
    )


def note(question: str, text: str, conversation_id: int) -> Fix:
    """A note holding ``text`` and the words of ``question`` it lacks."""
    return Fix(
        FixAction.NOTE,
        "Add a note with the question's words",
        text=keyword_note(question, text),
        conversation_id=conversation_id,
    )


def adds_words(question: str, text: str) -> bool:
    """Whether a keyword note for ``text`` would hold any word of ``question`` it lacks."""
    return keyword_note(question, text) != keyword_note("", text)


async def apply_fix(
    fix: Fix,
    memories: MemoryService,
    projects: ProjectService | None = None,
    documents: DocumentService | None = None,
) -> str:
    """Do what ``fix`` says, as the user; returns what was done, in a few words."""
    if fix.action == FixAction.PIN and fix.memory_id is not None:
        await memories.pin(fix.memory_id)
        return "Pinned."
    if fix.action == FixAction.RESTORE and fix.memory_id is not None:
        await memories.restore(fix.memory_id)
        return "Restored."
    if fix.action == FixAction.NOTE and fix.text:
        await memories.remember(
            fix.text, kind=MemoryKind.NOTE, conversation_id=fix.conversation_id, explicit=True
        )
        return "Note added."
    moving = fix.action in (FixAction.MOVE_HERE, FixAction.EVERY_CHAT)
    project_id = fix.project_id if fix.action == FixAction.MOVE_HERE else None
    if moving and fix.document_id is not None and documents is not None:
        await documents.set_project(fix.document_id, project_id)
        return "Moved."
    if moving and fix.memory_id is not None and projects is not None:
        if project_id is None:
            await projects.promote(fix.memory_id)
        else:
            await projects.demote(fix.memory_id, project_id)
        return "Moved."
    raise InvalidInputError(f"This fix can't be applied here ({fix.action.value}).")


def _short(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
