"""The status bar says what background work does now: learning only while it runs, and
"will learn … after the answer" while the job only waits in the queue."""

from __future__ import annotations

from dataclasses import replace

from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.ui.widgets.job_status import JobStatus as JobStatusWidgets

QUEUED = Job(7, "critical_info", {"message_id": 1}, JobStatus.PENDING, 0, "t", "t", 1)


def test_a_queued_job_is_not_said_to_be_learning_until_it_runs(qapp):
    status = JobStatusWidgets()
    status.on_job_status_changed(QUEUED)
    assert status.running_label.text() == "Will learn from your message after the answer"
    status.on_job_status_changed(replace(QUEUED, status=JobStatus.RUNNING, attempts=1))
    assert status.running_label.text() == "Learning from your message…"
    status.on_job_status_changed(replace(QUEUED, status=JobStatus.DONE, attempts=1))
    assert status.running_label.text() == ""


def test_learning_from_imports_says_so_and_its_failures_count_as_learning(qapp):
    status = JobStatusWidgets()
    imported = replace(QUEUED, id=8, kind="learn_imported")
    status.on_job_status_changed(replace(imported, status=JobStatus.RUNNING, attempts=1))
    assert status.running_label.text() == "Learning from your imported conversations…"
    status.on_job_status_changed(
        replace(imported, status=JobStatus.FAILED, attempts=4, last_error="ModelError: down")
    )
    status.on_job_status_changed(
        replace(QUEUED, status=JobStatus.FAILED, attempts=4, last_error="ModelError: down")
    )
    assert status.failed_label.text() == "Couldn't learn from 2 messages: down"
