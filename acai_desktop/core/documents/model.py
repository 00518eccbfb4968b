"""The records of the documents feature: a document, a passage found in it, and the
evidence an answer used."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from acai_desktop.core.errors import InvalidInputError


class DocumentReadError(InvalidInputError):
    """A file that can't be used as a document; the message says why and what to do."""


class AttachmentFailed(DocumentReadError):
    """A file attached for the message being sent could not be indexed: the message is
    not sent (the composer keeps it), and the reason says which file and why."""


class DocumentStatus(StrEnum):
    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    ERROR = "error"


class ScopeMode(StrEnum):
    """Which documents a conversation draws evidence from."""

    ALL = "all"
    SOME = "some"  # the documents listed for it
    NONE = "none"


@dataclass(frozen=True)
class DocumentScope:
    mode: ScopeMode = ScopeMode.ALL
    document_ids: tuple[int, ...] = ()  # with SOME only

    def to_dict(self) -> dict:
        return {"mode": str(self.mode), "document_ids": list(self.document_ids)}


@dataclass(frozen=True)
class Document:
    id: int
    path: str
    name: str
    size: int
    kind: str  # text, markdown, pdf, html, code; image (an attachment, never indexed)
    status: DocumentStatus
    added_at: str
    sha256: str | None = None
    mtime: float | None = None
    error: str | None = None
    chunk_count: int = 0
    page_count: int = 0
    indexed_at: str | None = None
    #: Attached in a chat's composer (not the user's library): evidence for that chat
    #: only, listed with the chat rather than in the Documents tab.
    attachment: bool = False
    #: The chat an attachment belongs to (None: the library, or held by a new chat).
    conversation_id: int | None = None
    #: The project it belongs to (None: every chat may draw on it).
    project_id: int | None = None
    #: Kept off remote models (core/store/local_only.py; so is an attachment of a
    #: local-only chat, and a local-only project's document).
    local_only: bool = False

    @classmethod
    def from_row(cls, row: dict) -> Document:
        return cls(
            **{
                **row,
                "status": DocumentStatus(row["status"]),
                "attachment": bool(row.get("attachment", False)),
                "local_only": bool(row.get("local_only", False)),
            }
        )

    def to_public_dict(self) -> dict:
        return {**self.__dict__, "status": str(self.status)}


@dataclass(frozen=True)
class Passage:
    """One chunk of a document, as search returns it."""

    chunk_id: int
    document_id: int
    document_name: str
    ordinal: int
    page: int | None
    heading: str
    content: str


@dataclass(frozen=True)
class RetrievedPassage:
    passage: Passage
    rank: int  # 1-based
    score: float
    reasons: list[str] = field(default_factory=list)
    # Passes the relevance floor (documents/search.py): only such passages enter a prompt.
    relevant: bool = True
    # What the floor read of it, kept for "Why didn't you use …?" (core/why_not): how
    # much of its bar its words and meaning reach (1 passes) and its cosine's standing
    # among the chunks searched (None: not judged; -inf: too few chunks to weigh it).
    evidence: float | None = None
    standing: float | None = None


@dataclass(frozen=True)
class EvidenceSource:
    """One passage that fed an answer (``message_id``), as ``answer_evidence`` keeps it:
    the document's name, page and a snippet are copies, so they outlive the document."""

    message_id: int
    rank: int
    chunk_id: int | None
    document_id: int | None
    document_name: str
    page: int | None
    score: float
    reasons: list[str]
    snippet: str

    def citation(self) -> str:
        """ "file.pdf, p. 12" (or just the name when the document has no pages)."""
        return f"{self.document_name}, p. {self.page}" if self.page else self.document_name

    def to_public_dict(self) -> dict:
        return {
            "document": self.document_name,
            "document_id": self.document_id,
            "chunk_id": self.chunk_id,
            "page": self.page,
            "rank": self.rank,
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "snippet": self.snippet,
        }


def sent_with(
    attachments: Iterable[Document], user_messages: Iterable[tuple[int, str]]
) -> dict[int, list[Document]]:
    """Which of a chat's user messages each attachment was sent with: the first one
    written after it was attached (``user_messages``: (id, created_at), any order; the
    times are the store's UTC ISO stamps, which sort as text). An attachment no message
    followed yet is still waiting in the composer: in none."""
    ordered = sorted(user_messages, key=lambda pair: pair[1])
    sent: dict[int, list[Document]] = {}
    for document in sorted(attachments, key=lambda d: d.added_at):
        message = next((m for m, at in ordered if at >= document.added_at), None)
        if message is not None:
            sent.setdefault(message, []).append(document)
    return sent
