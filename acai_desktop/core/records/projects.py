"""Projects, and the scope a chat's memory sees, as rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Project:
    """A project groups chats, documents and memories (issue 26)."""

    id: int
    name: str
    created_at: str
    updated_at: str
    #: The chat model a chat of the project uses unless it sets its own (None: the
    #: profile's).
    default_model: str | None = None
    #: Kept off remote models, with its chats, memories and documents
    #: (core/store/local_only.py).
    local_only: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "local_only", bool(self.local_only))  # SQLite's 0/1


#: A promoted memory's ``meta`` key: the project it was promoted from (where demoting
#: it takes it back).
PROMOTED_FROM = "promoted_from"


@dataclass(frozen=True)
class ProjectScope:
    """What a chat's memory sees: the memories, messages and documents of its project
    (``project_id``) and those outside any project; never another project's. A chat
    outside any project (``project_id`` None) sees only what is outside every project.
    A search given no scope at all (the evaluations, the MCP server's global tools)
    sees everything."""

    project_id: int | None = None
