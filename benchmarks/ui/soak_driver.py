"""The window side of ``bench soak``: one child process driving the real window.

It opens the profile the parent prepared (every model role on the parent's scripted
server), then turn after turn does what a user does, and prints one JSON line per event
on stdout for the parent (see :mod:`benchmarks.bench_soak`):
``started``, ``sending`` (before a message is sent), ``turn`` (after it is answered and
the window was used), ``done`` (after the background jobs finished) or ``error``.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.turns.answer_text import was_cut
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_lab.headless import QtMessageCounter, run_in_session, wait_until
from acai_lab.none_refcount import paint_while_scrolling, type_in
from benchmarks.bench_soak import (
    CITIES,
    DRINKS,
    job_counts,
    resident_megabytes,
    turn_message,
    turn_of,
    unfinished_jobs,
)

TURN_TASK = "turn"
#: A turn that takes longer is stuck (the slowest fault, a timeout, costs a few seconds).
TURN_SECONDS = 90.0
JOBS_SECONDS = 180.0
#: A new conversation every so many turns, as people do (and the transcript stays bounded).
TURNS_PER_CONVERSATION = 25
RETRIES = 3
EDIT_EVERY = 5
NOTE_EVERY = 10
ROWS_SEARCHED = 500
#: Exit status for a turn that never finished: the parent tells it from a crash.
STUCK_EXIT = 3


def emit(event: dict) -> None:
    print(json.dumps(event), flush=True)


def _row_of_turn(model, turn: int) -> int | None:
    for row in range(model.rowCount() - 1, -1, -1):
        index = model.index(row, 0)
        if index.data(MessageRoles.ROLE) == "user":
            return row if turn_of(index.data(MessageRoles.CONTENT)) == turn else None
    return None


def _memory_row(model, memory_id: int | None = None, content: str | None = None) -> int | None:
    for row in range(min(model.rowCount(), ROWS_SEARCHED)):
        index = model.index(row, 0)
        if memory_id is not None and index.data(MemoryRoles.ID) != memory_id:
            continue
        if content is not None and index.data(MemoryRoles.CONTENT) != content:
            continue
        return row
    return None


class SoakDriver:
    def __init__(self, profile: Profile, first: int, last: int, crash_at: int | None) -> None:
        self.profile = profile
        self.first, self.last, self.crash_at = first, last, crash_at
        self.counter = QtMessageCounter()
        self.turn = first

    def _report(self, event: dict) -> None:
        event.update(
            rss_mb=resident_megabytes(),
            qt_warnings=self.counter.warnings,
            qt_samples=self.counter.samples[:5],
        )
        emit(event)

    async def scenario(self, session: AppController) -> None:
        self._report({"event": "started", "turn": self.first})
        scroll = paint_while_scrolling(session.window.chat_view, steps=4)
        for turn in range(self.first, self.last + 1):
            self.turn = turn
            await self.one_turn(session, turn, scroll)
            self._report({"event": "turn", "turn": turn})
        await wait_until(
            lambda: unfinished_jobs(job_counts(self.profile.database_path)) == 0, JOBS_SECONDS
        )
        self._report({"event": "done", "jobs": job_counts(self.profile.database_path)})

    async def one_turn(self, session: AppController, turn: int, scroll) -> None:
        window = session.window
        if turn == self.first or turn % TURNS_PER_CONVERSATION == 1:
            session.conversations.new_chat()
        emit({"event": "sending", "turn": turn})
        window.composer.input.setPlainText(turn_message(turn))
        window.composer.send_button.click()
        messages = window.messages_model
        await wait_until(lambda: _row_of_turn(messages, turn) is not None, TURN_SECONDS)
        row = _row_of_turn(messages, turn)
        if turn == self.crash_at:
            # Mid-answer, as a crash would strike: the message is committed, the answer not.
            await wait_until(lambda: messages.rowCount() > row + 1, TURN_SECONDS)
            os.abort()
        await self._answered(session)
        for _ in range(RETRIES):
            answer = messages.index(messages.rowCount() - 1, 0)
            if answer.data(MessageRoles.STATUS) == "complete":
                break
            if was_cut(answer.data(MessageRoles.ERROR)):
                break  # cut at the size limit: a retry would be cut again
            window.chat_view.retry_requested.emit(answer.data(MessageRoles.ID))  # the Retry link
            await self._answered(session)
        for _ in range(5):
            scroll()
        word = CITIES[turn % len(CITIES)].lower()
        typing = type_in(window.memory_search, (word,))
        for _ in range(2 * len(word)):  # type it, then erase it
            typing()
        if turn % EDIT_EVERY == 0:
            await self.edit_a_memory(session, turn)
        if turn % NOTE_EVERY == 0:
            note = f"Soak note {turn}: the spare key is in the blue folder."
            session.memory_panel.save_note(note)
            await wait_until(
                lambda: _memory_row(window.memories_model, content=note) is not None, 30
            )

    async def _answered(self, session: AppController) -> None:
        await wait_until(lambda: session.tasks.get(TURN_TASK) is None, TURN_SECONDS)

    async def edit_a_memory(self, session: AppController, turn: int) -> None:
        model = session.window.memories_model
        if model.rowCount() == 0:
            return
        memory_id = model.index(turn % min(model.rowCount(), 20), 0).data(MemoryRoles.ID)
        text = f"The user likes {DRINKS[turn % len(DRINKS)]} (checked at soak turn {turn})."
        session.memory_panel.save(memory_id, text)
        await wait_until(lambda: _memory_row(model, memory_id, text) is not None, 30)


def run_soak_child(data_dir: str | None, first: int, last: int, crash_at: int | None) -> int:
    driver = SoakDriver(Profile.at(data_dir), first, last, crash_at)
    driver.counter.install()
    try:
        run_in_session(AppController(driver.profile), driver.scenario)
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        emit({"event": "error", "turn": driver.turn, "error": f"{type(error).__name__}: {error}"})
        return STUCK_EXIT
    finally:
        driver.counter.uninstall()
    return 0
