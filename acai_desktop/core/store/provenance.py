"""Repository for answer_sources: which memories fed which answer, and why; and for
answer_evidence: which document passages did."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlite_utils import Database

from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.records import AnswerSource
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.documents import evidence_of_answer, record_evidence


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


class ProvenanceRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def record(self, message_id: int, sources: Sequence[AnswerSource]) -> None:
        await self.store.run(record_answer_sources, message_id, list(sources))

    async def sources_of_answer(self, message_id: int) -> list[AnswerSource]:
        return await self.store.run(sources_of_answer, message_id)

    async def answers_using_memory(self, memory_id: int) -> list[AnswerSource]:
        return await self.store.run(answers_using_memory, memory_id)

    async def record_evidence(self, message_id: int, sources: Sequence[EvidenceSource]) -> None:
        await self.store.run(record_evidence, message_id, list(sources))

    async def evidence_of_answer(self, message_id: int) -> list[EvidenceSource]:
        """The document passages that fed an answer, by rank ("Sources: file.pdf, p. 12")."""
        return await self.store.run(evidence_of_answer, message_id)
