"""The import of other assistants' conversations as a service of the assistant: import
a file, and follow, pause and resume the learning it queued.

Learning runs as ordinary background jobs (``learn_imported``, the critical-info
processor's work on one message): committed with the conversations, run by the job
runner beside the chat (a turn goes first on a one-request server), put back when the
app closes and resumed at the next start. Pausing is a row in ``paused_job_kinds``, so
it holds in every process and across restarts until the user resumes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.importer import (
    ConversationImportReport,
    ImportProgress,
    import_conversations,
    read_export,
)
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.imported_conversations import LEARN_IMPORTED_JOB
from acai_desktop.core.store.jobs import JobRepository

__all__ = ["LEARN_IMPORTED_JOB", "ConversationImports", "LearningProgress"]


@dataclass(frozen=True)
class LearningProgress:
    """Learning from imported messages: how many jobs are done, waiting, failed."""

    done: int
    waiting: int  # pending or running
    failed: int
    paused: bool

    @property
    def total(self) -> int:
        return self.done + self.waiting + self.failed

    def text(self) -> str:
        if not self.total:
            return "No learning from imported conversations is queued."
        state = "finished" if not self.waiting else "paused" if self.paused else "running"
        failed = f", {self.failed} failed" if self.failed else ""
        return (
            f"Learning from imported messages: {self.done} of {self.total} done{failed} ({state})."
        )

    def to_dict(self) -> dict:
        return {
            "done": self.done,
            "waiting": self.waiting,
            "failed": self.failed,
            "total": self.total,
            "paused": self.paused,
        }


class ConversationImports:
    def __init__(
        self,
        store: Store,
        memories: MemoryService,
        events: EventBus,
        jobs: JobRepository,
        wake_runner: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.memories = memories
        self.events = events
        self.jobs = jobs
        self._wake_runner = wake_runner

    async def import_file(
        self,
        source: str,
        path: str | Path,
        budget: LearningBudget,
        progress: ImportProgress | None = None,
    ) -> ConversationImportReport:
        """Check the whole file, then write it (see :mod:`.importer`)."""
        # Reading a large export takes seconds: off the loop.
        conversations = await asyncio.to_thread(read_export, source, path)
        report = await import_conversations(
            self.store, self.memories, self.events, conversations, budget, progress=progress
        )
        if report.learning_jobs:
            self._wake()
        return report

    async def learning_progress(self) -> LearningProgress:
        counts = await self.jobs.count_kind(LEARN_IMPORTED_JOB)
        return LearningProgress(
            done=counts["done"],
            waiting=counts["pending"] + counts["running"],
            failed=counts["failed"],
            paused=await self.jobs.is_kind_paused(LEARN_IMPORTED_JOB),
        )

    async def pause_learning(self) -> LearningProgress:
        """The queued learning waits (a job running now finishes its message)."""
        await self.jobs.pause_kind(LEARN_IMPORTED_JOB)
        return await self.learning_progress()

    async def resume_learning(self) -> LearningProgress:
        await self.jobs.resume_kind(LEARN_IMPORTED_JOB)
        self._wake()
        return await self.learning_progress()

    def _wake(self) -> None:
        if self._wake_runner is not None:
            self._wake_runner()


def imports_beside_the_window(memories: MemoryService) -> ConversationImports:
    """The ``import`` command's imports, over a memory opened without the profile's
    lock: the learning they queue runs in the window (or at its next start)."""
    return ConversationImports(
        memories.store, memories, memories.events, JobRepository(memories.store)
    )
