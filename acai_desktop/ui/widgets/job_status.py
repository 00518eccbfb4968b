"""The status bar's news about background jobs: what is running ("Learning from your
message…"), what waits because the server asked for a pause ("Learning waits for the
model until 15:02"), and what failed (what, why); Retry runs the failed and the waiting
ones now."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QPushButton

from acai_desktop.core.clock import local_time_text
from acai_desktop.core.records.jobs import Job
from acai_desktop.ui.untrusted import plain_label

JOB_LABELS = {
    "critical_info": "Learning from your message…",
    "summary": "Summarising…",
    "index_document": "Reading a document…",
    "learn_imported": "Learning from your imported conversations…",
    "title": "Naming the chat…",
}
#: What a job waiting its turn is called: it has not started (the answer comes first).
QUEUED_LABELS = {
    "critical_info": "Will learn from your message after the answer",
    "summary": "Will summarise older messages later",
    "index_document": "A document waits to be read",
    "learn_imported": "Will learn from your imported conversations",
    "title": "Will name the chat after the answer",
}
#: What a job waiting for a later retry is doing, as the subject of "… waits for the model".
WAITING_LABELS = {
    "critical_info": "Learning",
    "summary": "Summarising",
    "index_document": "Reading a document",
    "learn_imported": "Learning from imports",
    "title": "Naming the chat",
}
FAILED_REASON_CHARS = 90


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _short_reason(error: str | None) -> str:
    """A failed job's reason for the status bar: without the exception's class name, on
    one line, cut to fit."""
    if not error:
        return ""
    name, colon, rest = error.partition(": ")
    text = rest if colon and name.isidentifier() else error
    text = " ".join(text.split())
    if len(text) > FAILED_REASON_CHARS:
        text = text[: FAILED_REASON_CHARS - 1].rstrip() + "…"
    return text


class JobStatus(QObject):
    """Owns the status bar's job widgets; the window places them."""

    retry_requested = Signal(list)  # ids of the failed jobs to queue again

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: Jobs not finished, by id: (running?, what it is called).
        self._running_jobs: dict[int, tuple[bool, str]] = {}
        #: Pending jobs that wait for a later retry (the server's Retry-After).
        self._delayed_jobs: dict[int, Job] = {}
        self._failed_jobs: dict[int, Job] = {}
        self.running_label = plain_label("", "JobsLabel")
        # Background work that failed (the model was down): what, why, and Retry.
        self.failed_label = plain_label("", "FailedJobsLabel")
        self.failed_label.setTextFormat(Qt.TextFormat.PlainText)  # the reason is a server's
        self.failed_label.setVisible(False)
        self.retry_button = QPushButton("Retry")
        self.retry_button.setObjectName("RetryJobsButton")
        self.retry_button.setToolTip("Run the failed or waiting background jobs again now")
        self.retry_button.setVisible(False)
        self.retry_button.clicked.connect(self._on_retry_button_clicked)

    @Slot(object)
    def on_job_status_changed(self, job: Job) -> None:
        self._running_jobs.pop(job.id, None)
        self._delayed_jobs.pop(job.id, None)
        self._failed_jobs.pop(job.id, None)
        if job.status == "failed":
            self._failed_jobs[job.id] = job
        elif job.waits_until() is not None:
            self._delayed_jobs[job.id] = job
        elif job.status == "running":
            self._running_jobs[job.id] = (True, JOB_LABELS.get(job.kind, "Working…"))
        elif job.status == "pending":
            self._running_jobs[job.id] = (False, QUEUED_LABELS.get(job.kind, "Queued"))
        self._show_running()
        self._show_failed()

    @Slot()
    def _on_retry_button_clicked(self) -> None:
        wanted = sorted({*self._failed_jobs, *self._delayed_jobs})
        if wanted:
            self.retry_requested.emit(wanted)

    def show_failed(self, jobs: list[Job]) -> None:
        """The failed, and the delayed, background jobs as read at start-up (later news
        comes as events); other jobs in ``jobs`` are ignored."""
        self._failed_jobs = {job.id: job for job in jobs if job.status == "failed"}
        self._delayed_jobs = {job.id: job for job in jobs if job.waits_until() is not None}
        self._show_running()
        self._show_failed()

    def _show_running(self) -> None:
        # What runs is news; what only waits its turn is said when nothing runs.
        running = [label for runs, label in self._running_jobs.values() if runs]
        queued = [label for runs, label in self._running_jobs.values() if not runs]
        parts = (running or queued)[:1]
        waiting = [(job.waits_until(), job) for job in self._delayed_jobs.values()]
        waiting = [(at, job) for at, job in waiting if at is not None]
        if waiting:
            at, job = min(waiting, key=lambda pair: pair[0])
            subject = WAITING_LABELS.get(job.kind, "A background job")
            parts.append(f"{subject} waits for the model until {local_time_text(at)}")
        self.running_label.setText(" · ".join(parts))

    def _show_failed(self) -> None:
        jobs = sorted(self._failed_jobs.values(), key=lambda job: job.id)
        self.failed_label.setVisible(bool(jobs))
        self.retry_button.setVisible(bool(jobs or self._delayed_jobs))
        if not jobs:
            self.failed_label.setText("")
            return
        kinds = {job.kind for job in jobs}
        if kinds <= {"critical_info", "learn_imported"}:
            what = f"Couldn't learn from {_count(len(jobs), 'message')}"
        elif kinds == {"index_document"}:
            what = f"Couldn't read {_count(len(jobs), 'document')}"
        else:
            what = f"{_count(len(jobs), 'background job')} failed"
        reason = _short_reason(jobs[-1].last_error)
        self.failed_label.setText(f"{what}: {reason}" if reason else what)
