"""Background jobs, as rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass
class Job:
    id: int
    kind: str
    payload: dict
    status: JobStatus
    attempts: int
    created_at: str
    updated_at: str
    conversation_id: int | None = None
    last_error: str | None = None
    run_after: str | None = None
    #: The answer this job waits for (it runs once that message is no longer streaming).
    wait_for_message_id: int | None = None
    #: How many times the job was queued again after it had failed.
    revivals: int = 0
    #: False when its failure can't be cured by trying again (e.g. invalid content).
    retryable: bool = True

    @classmethod
    def from_row(cls, row: dict) -> Job:
        return cls(
            id=row["id"],
            kind=row["kind"],
            payload=json.loads(row["payload"]),
            status=JobStatus(row["status"]),
            attempts=row["attempts"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            conversation_id=row["conversation_id"],
            last_error=row["last_error"],
            run_after=row["run_after"],
            wait_for_message_id=row.get("wait_for_message_id"),
            revivals=row.get("revivals") or 0,
            retryable=bool(row.get("retryable", 1)),
        )

    def waits_until(self, now: datetime | None = None) -> datetime | None:
        """When a pending job delayed for a retry (e.g. the server's Retry-After) may run;
        None when it may run now, or is not pending."""
        if self.status != JobStatus.PENDING or not self.run_after:
            return None
        at = datetime.fromisoformat(self.run_after)
        return at if at > (now or datetime.now(UTC)) else None

    def to_public_dict(self) -> dict:
        """The job as the command line's --json prints it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "status": str(self.status),
            "payload": self.payload,
            "conversation_id": self.conversation_id,
            "attempts": self.attempts,
            "revivals": self.revivals,
            "retryable": self.retryable,
            "last_error": self.last_error,
            "run_after": self.run_after,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
