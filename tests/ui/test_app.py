"""Start-up and shut-down of the real GUI session, in-process, on the offscreen platform."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QTimer

from acai_desktop.core.errors import StoreError
from acai_desktop.core.profile.data import open_profile_data
from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app import create_application, run_gui
from acai_desktop.ui.app_controller import AppController
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session


def run_session(session: AppController) -> int:
    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(session.run())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_run_gui_opens_the_profile_and_quits_cleanly(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    assert run_gui(profile, quit_after_ms=1500) == 0
    assert profile.database_path.is_file()
    # The store was closed: the WAL was checkpointed away and the file is usable.
    wal = profile.database_path.with_name(profile.database_path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with sqlite3.connect(profile.database_path) as db:
        assert db.execute("select count(*) from memories").fetchone() == (0,)


def test_quitting_cancels_and_awaits_running_tasks_before_closing_the_store(
    qapp, tmp_path, fake_openai
):
    session = gui_session(configure_profile(tmp_path, fake_openai), quit_after_ms=None)
    seen: list[str] = []

    async def streaming_turn():
        try:
            await asyncio.Event().wait()
        finally:
            # Still allowed to use the store: shut-down closes it only afterwards.
            await session.assistant._store.run(lambda db: db.execute("select 1").fetchone())
            seen.append("turn cleaned up with the store open")

    def start_turn_then_close_window():
        if session.assistant is None:  # still opening
            QTimer.singleShot(50, start_turn_then_close_window)
            return
        session.tasks.start(streaming_turn(), key="turn")
        QTimer.singleShot(50, session.window.close)

    QTimer.singleShot(100, start_turn_then_close_window)
    assert run_session(session) == 0
    assert seen == ["turn cleaned up with the store open"]
    # The window is gone with its controllers: deleted, and the run no longer started.
    assert session.assistant is None and not session.started
    assert not shiboken6.isValid(session.window)
    assert len(session.tasks) == 0


def test_stop_button_cancels_only_the_turn(qapp, tmp_path, fake_openai):
    session = gui_session(configure_profile(tmp_path, fake_openai))
    tasks: dict[str, asyncio.Task] = {}
    after_stop: dict[str, bool] = {}

    async def wait_forever():
        await asyncio.Event().wait()

    def start_tasks_and_press_stop():
        tasks["turn"] = session.tasks.start(wait_forever(), key="turn")
        tasks["other"] = session.tasks.start(wait_forever(), key="other")
        session.window.set_busy(True)
        session.window.composer.stop_button.click()
        QTimer.singleShot(100, look_then_quit)

    def look_then_quit():
        after_stop.update({name: task.done() for name, task in tasks.items()})
        session.request_quit()

    QTimer.singleShot(200, start_tasks_and_press_stop)
    assert run_session(session) == 0
    assert after_stop == {"turn": True, "other": False}
    assert tasks["turn"].cancelled() and tasks["other"].cancelled()


def test_a_corrupt_database_is_a_clean_error(qapp, tmp_path):
    profile = Profile.at(tmp_path)
    profile.ensure()
    profile.database_path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError):
        run_gui(profile, quit_after_ms=100)  # closes the error box, which the error opens


def test_damaged_settings_and_a_profile_open_elsewhere_leave_its_answers_alone(qapp, tmp_path):
    """The window respects another holder of the profile even when the model settings
    can't be read: it says so, and no answer of the other one is marked stopped."""
    profile = Profile.at(tmp_path).ensure()

    async def seed() -> int:
        """An answer that the other holder is writing right now."""
        data = await open_profile_data(profile)
        try:
            conversation = await data.conversations.create()
            answer = await data.conversations.add_message(
                conversation.id, "assistant", "half an ans", status="streaming"
            )
            return answer.id
        finally:
            await data.aclose()

    answer_id = asyncio.run(seed())
    profile.settings_path.write_text("{ this is not json", encoding="utf-8")
    holder = ProfileLock(profile.data_dir).acquire()
    try:
        with pytest.raises(StoreError, match="already open in another ACAI Desktop"):
            run_gui(profile, quit_after_ms=100)  # closes the error box, which the error opens
    finally:
        holder.release()
    with sqlite3.connect(profile.database_path) as db:
        (status,) = db.execute("SELECT status FROM messages WHERE id = ?", (answer_id,)).fetchone()
    assert status == "streaming"
