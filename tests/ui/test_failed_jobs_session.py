"""Failed background jobs in the window: what failed, why (as plain text), and Retry."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.clock import now_iso
from acai_desktop.core.records import Job, JobStatus
from acai_desktop.ui.main_window import MainWindow
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.session import GuiSession
from acai_desktop.ui.theme import apply_theme
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

HTML_ERROR = (
    'ModelUnreachableError: Could not reach <img src="file:///etc/hostname"> <b>the server</b>'
)


def _failed_job_for_a_message(profile, *, revivals: int) -> None:
    """A turn whose learning failed while the model was down (as the runner leaves it),
    already revived as often as start-up does on its own."""
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
                "last_error, created_at, updated_at, revivals) "
                "VALUES ('critical_info', '{\"message_id\": 1}', 1, 'failed', 4, ?, ?, ?, ?)",
                [HTML_ERROR, at, at, revivals],
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
    _failed_job_for_a_message(profile, revivals=3)

    async def scenario(session: GuiSession):
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
    with qtbot.waitSignal(window.jobs_retry_requested, timeout=1000) as retried:
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
