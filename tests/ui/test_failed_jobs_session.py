"""Failed background jobs in the window: what failed, why (as plain text), and Retry."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.clock import local_time_text, now_iso
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.main_window import MainWindow
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.theme import apply_theme
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

HTML_ERROR = (
    'ModelUnreachableError: Could not reach <img src="file:///etc/hostname"> <b>the server</b>'
)


def _failed_job_for_a_message(profile) -> None:
    """A turn whose learning failed (as the runner leaves it), in a way start-up does not
    retry on its own (every start gives a job that failed for a passing reason another
    round), so only the user's Retry runs it."""
    db = sqlite3.connect(profile.database_path)
    try:
        at = now_iso()
        with db:
            db.execute(
                "INSERT INTO conversations (title, created_at, updated_at) VALUES ('t', ?, ?)",
                [at, at],
            )
            db.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at) "
                "VALUES (1, 'user', 'I prefer green tea in the morning.', ?)",
                [at],
            )
            db.execute(
                "INSERT INTO jobs (kind, payload, conversation_id, status, attempts, "
                "last_error, created_at, updated_at, retryable) "
                "VALUES ('critical_info', '{\"message_id\": 1}', 1, 'failed', 4, ?, ?, ?, 0)",
                [HTML_ERROR, at, at],
            )
    finally:
        db.close()


def test_failed_jobs_show_with_retry_and_retry_learns(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    # Opening the profile once creates the schema; the failed job goes in after.
    from tests.support.aio import run
    from tests.support.assistant import running_assistant

    async def create_schema():
        async with running_assistant(profile.data_dir, fake_openai, start_jobs=False):
            pass

    run(create_schema())
    _failed_job_for_a_message(profile)

    async def scenario(session: AppController):
        window = session.window
        await wait_until(lambda: window.retry_jobs_button.isVisible())
        label = window.failed_jobs_label
        assert label.isVisible()
        assert label.textFormat() == Qt.TextFormat.PlainText
        assert label.text().startswith("Couldn't learn from 1 message: Could not reach <img")
        assert "ModelUnreachableError" not in label.text()
        QTest.mouseClick(window.retry_jobs_button, Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: (
                "The user prefers green tea in the morning"
                in [
                    window.memories_model.index(r).data(MemoryRoles.CONTENT)
                    for r in range(window.memories_model.rowCount())
                ]
            )
        )
        await wait_until(lambda: not window.retry_jobs_button.isVisible())
        assert not label.isVisible()

    run_in_session(gui_session(profile), scenario)


def _job(job_id: int, status: JobStatus, error: str | None = None, kind="critical_info") -> Job:
    at = now_iso()
    return Job(job_id, kind, {"message_id": job_id}, status, 4, at, at, 1, error)


def test_the_window_lists_failed_jobs_as_plain_text_and_retry_asks_for_them(qtbot, qapp):
    apply_theme(qapp)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert not window.retry_jobs_button.isVisible()

    window.show_failed_jobs([_job(3, JobStatus.FAILED, HTML_ERROR)])
    window.events.job_status_changed.emit(_job(5, JobStatus.FAILED, "ModelTimeoutError: slow"))
    assert window.retry_jobs_button.isVisible() and window.retry_jobs_button.text() == "Retry"
    assert window.failed_jobs_label.text() == "Couldn't learn from 2 messages: slow"
    window.events.job_status_changed.emit(_job(3, JobStatus.DONE))  # one came back by itself
    window.events.job_status_changed.emit(_job(5, JobStatus.FAILED, HTML_ERROR))
    label = window.failed_jobs_label
    assert label.text().startswith("Couldn't learn from 1 message: Could not reach <img src=\"")
    assert label.textFormat() == Qt.TextFormat.PlainText
    with qtbot.waitSignal(window.job_status.retry_requested, timeout=1000) as retried:
        qtbot.mouseClick(window.retry_jobs_button, Qt.MouseButton.LeftButton)
    assert retried.args == [[5]]

    window.events.job_status_changed.emit(_job(5, JobStatus.PENDING))
    assert not window.retry_jobs_button.isVisible() and not label.isVisible()


def test_document_jobs_are_named_as_such_running_and_failed(qtbot, qapp):
    apply_theme(qapp)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.events.job_status_changed.emit(_job(7, JobStatus.RUNNING, kind="index_document"))
    assert window.job_status.running_label.text() == "Reading a document…"
    window.events.job_status_changed.emit(
        _job(7, JobStatus.FAILED, "DocumentReadError: encrypted PDF", kind="index_document")
    )
    assert window.job_status.running_label.text() == ""
    assert window.failed_jobs_label.text() == "Couldn't read 1 document: encrypted PDF"
    # Failures of two kinds together: counted as background jobs.
    window.events.job_status_changed.emit(_job(8, JobStatus.FAILED, "slow"))
    assert window.failed_jobs_label.text() == "2 background jobs failed: slow"


def test_a_job_delayed_by_the_server_shows_until_when_and_retry_runs_it_now(qtbot, qapp):
    """Issue 20, item 3: a job pushed back by a Retry-After was invisible in the window."""
    apply_theme(qapp)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    at = datetime.now(UTC) + timedelta(minutes=10)
    delayed = _job(4, JobStatus.PENDING, "ModelRateLimitedError: slow down")
    delayed.run_after = at.isoformat()

    window.events.job_status_changed.emit(delayed)
    expected = f"Learning waits for the model until {local_time_text(at)}"
    assert window.job_status.running_label.text() == expected
    assert window.retry_jobs_button.isVisible() and not window.failed_jobs_label.isVisible()
    with qtbot.waitSignal(window.job_status.retry_requested, timeout=1000) as retried:
        qtbot.mouseClick(window.retry_jobs_button, Qt.MouseButton.LeftButton)
    assert retried.args == [[4]]

    window.events.job_status_changed.emit(_job(4, JobStatus.RUNNING))
    assert window.job_status.running_label.text() == "Learning from your message…"
    assert not window.retry_jobs_button.isVisible()


def test_a_delayed_job_found_at_start_up_is_shown(qtbot, qapp):
    window = MainWindow()
    qtbot.addWidget(window)
    at = datetime.now(UTC) + timedelta(minutes=5)
    delayed = _job(9, JobStatus.PENDING, kind="summary")
    delayed.run_after = at.isoformat()
    window.show_failed_jobs([delayed, _job(10, JobStatus.PENDING)])
    assert window.job_status.running_label.text() == (
        f"Summarising waits for the model until {local_time_text(at)}"
    )
