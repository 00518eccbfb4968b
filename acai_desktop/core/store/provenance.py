"""Repository for answer_sources: which memories fed which answer, and why; and for
answer_evidence: which document passages did."""

from __future__ import annotations

import json
from collections.abc import Sequence

from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.records.conversations import AnswerSource, RecalledMessage
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.documents import evidence_of_answer, record_evidence
from acai_desktop.core.turns.citations import Citation, citations_of


def record_answer_sources(db: Database, message_id: int, sources: Sequence[AnswerSource]) -> None:
    with db.atomic():
        db.execute("DELETE FROM answer_sources WHERE message_id = ?", [message_id])
        for source in sources:
            db.execute(
                "INSERT INTO answer_sources (message_id, memory_id, recalled_message_id, rank, "
                "score, reasons) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    message_id,
                    source.memory_id,
                    source.recalled_message_id,
                    source.rank,
                    source.score,
                    json.dumps(source.reasons),
                ],
            )


def _select(db: Database, where: str, value: int) -> list[AnswerSource]:
    cursor = db.execute(
        "SELECT message_id, memory_id, recalled_message_id, rank, score, reasons "
        "FROM answer_sources "
        f"WHERE {where} = ? ORDER BY message_id, rank",
        [value],
    )
    names = [d[0] for d in cursor.description]
    return [AnswerSource.from_row(dict(zip(names, row, strict=True))) for row in cursor]


def sources_of_answer(db: Database, message_id: int) -> list[AnswerSource]:
    return _select(db, "message_id", message_id)


def answers_using_memory(db: Database, memory_id: int) -> list[AnswerSource]:
    return _select(db, "memory_id", memory_id)


def citations_in_conversation(
    db: Database, conversation_id: int
) -> dict[int, tuple[Citation, ...]]:
    """The numbered sources of each answer of a conversation (every version and branch),
    by answer id, derived from its provenance (see core.turns.citations): three queries,
    however long the chat. Answers without any are left out."""
    answers = "SELECT id FROM messages WHERE conversation_id = ? AND role = 'assistant'"
    evidence: dict[int, list[EvidenceSource]] = {}
    for row in db.execute(
        "SELECT message_id, rank, chunk_id, document_id, document_name, page, score, "
        f"reasons, snippet FROM answer_evidence WHERE message_id IN ({answers}) "
        "ORDER BY message_id, rank",
        [conversation_id],
    ):
        evidence.setdefault(row[0], []).append(EvidenceSource(*row[:7], json.loads(row[7]), row[8]))
    sources: dict[int, list[AnswerSource]] = {}
    cursor = db.execute(
        "SELECT message_id, memory_id, recalled_message_id, rank, score, reasons "
        f"FROM answer_sources WHERE message_id IN ({answers}) ORDER BY message_id, rank",
        [conversation_id],
    )
    names = [d[0] for d in cursor.description]
    for row in cursor:
        source = AnswerSource.from_row(dict(zip(names, row, strict=True)))
        sources.setdefault(source.message_id, []).append(source)
    recalled = {
        row[0]: RecalledMessage(*row)
        for row in db.execute(
            "SELECT m.id, m.conversation_id, c.title, m.role, m.content, m.created_at, "
            "m.author FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id "
            "WHERE m.id IN (SELECT recalled_message_id FROM answer_sources "
            f"WHERE message_id IN ({answers}))",
            [conversation_id],
        )
    }
    cited = {}
    for answer_id in evidence.keys() | sources.keys():
        citations = citations_of(evidence.get(answer_id, ()), sources.get(answer_id, ()), recalled)
        if citations:
            cited[answer_id] = citations
    return cited


class ProvenanceRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def record(self, message_id: int, sources: Sequence[AnswerSource]) -> None:
        await self.store.run(record_answer_sources, message_id, list(sources))

    async def sources_of_answer(self, message_id: int) -> list[AnswerSource]:
        return await self.store.run(sources_of_answer, message_id)

    async def answers_using_memory(self, memory_id: int) -> list[AnswerSource]:
        return await self.store.run(answers_using_memory, memory_id)

    async def citations_in_conversation(
        self, conversation_id: int
    ) -> dict[int, tuple[Citation, ...]]:
        return await self.store.run(citations_in_conversation, conversation_id)

    async def record_evidence(self, message_id: int, sources: Sequence[EvidenceSource]) -> None:
        await self.store.run(record_evidence, message_id, list(sources))

    async def evidence_of_answer(self, message_id: int) -> list[EvidenceSource]:
        """The document passages that fed an answer, by rank ("Sources: file.pdf, p. 12")."""
        return await self.store.run(evidence_of_answer, message_id)
