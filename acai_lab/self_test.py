"""``acai-desktop --self-test``: the real window, offscreen, through one whole turn.

On a copy of the profile (see :mod:`acai_lab.profile_snapshot`) and
with the in-process scripted model, it opens the window as a user's start would, then:
saves a note from the window and sees it reach the memory panel's model; sends one
message and sees the answer stream in, with its provenance naming the note; sees the
fact the processors learn from that message reach the panel; paints the chat, types in
the memory search and reads every Qt model many times while watching that
``sys.getrefcount(None)`` does not fall (the PySide6 6.12.0 fault); counts Qt warnings;
and shuts down cleanly. Each step is a :class:`Check`; a failed step stops the ones that
need it.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import PySide6

from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController, model_problem_text
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_lab.headless import (
    QtMessageCounter,
    run_in_session,
    use_offscreen_platform,
    wait_until,
)
from acai_lab.none_refcount import SpareNoneReferences, watch_none_refcount, window_paths
from acai_lab.profile_snapshot import snapshot_database
from acai_lab.scripted_model import call_kind, fake_model, markdown_answer
from acai_lab.scripted_openai import FakeOpenAIServer, Reply
from acai_lab.scripted_profile import keep_away_from_the_keyring, use_scripted_model

NOTE = "ACAI self-test note: the self-test code word is heliotrope."
QUESTION = "My name is Ada. What is the self-test code word?"
LEARNED = "The user's name is Ada"
ANSWER_CHARACTERS = 12_000  # the length that crashed painting with PySide6 6.12.0
STREAM_PIECE_CHARACTERS = 400
#: Runs of each hot path while watching None's count (each run is many Qt calls).
PATH_RUNS = {
    "chat painting": 150,
    "memory search typing": 40,
    "memory panel painting": 60,
    "Qt models data()": 10,
}
#: Rows of the panel's model searched for a memory (newest first; a big panel pages).
ROWS_SEARCHED = 500
TURN_TASK = "turn"
#: The whole self-test; a hang is a failure, not a wait.
DEADLINE_SECONDS = 180.0


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class SelfTestReport:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "checks": [asdict(check) for check in self.checks],
            "pyside6": PySide6.__version__,
            "python": sys.version.split()[0],
        }

    def as_text(self) -> str:
        facts = self.to_json()
        lines = [
            f"ACAI Desktop self-test (PySide6 {facts['pyside6']}, "
            f"Python {facts['python']}, offscreen)"
        ]
        for check in self.checks:
            lines.append(f"  {'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
        failed = sum(1 for check in self.checks if not check.ok)
        if failed:
            lines.append(f"self-test FAILED: {failed} of {len(self.checks)} checks failed")
        else:
            lines.append(f"self-test passed: all {len(self.checks)} checks")
        return "\n".join(lines)


def responder(body: dict) -> Reply:
    """The rule-based fake model, with a long Markdown chat answer naming what it recalls."""
    reply = fake_model(body)
    if call_kind(body) != "chat":
        return reply
    # In pieces of a few hundred characters: the check is the painting of a long
    # answer, not the speed of streaming one token at a time (bench ui measures that).
    text = markdown_answer(ANSWER_CHARACTERS, lead=reply.content())
    return Reply(text=text, chunk_chars=STREAM_PIECE_CHARACTERS)


def _rows(model, role: int, limit: int = ROWS_SEARCHED) -> list[Any]:
    return [model.index(row, 0).data(role) for row in range(min(model.rowCount(), limit))]


def _memory_id_of(window, content: str) -> int | None:
    model = window.memories_model
    for row in range(min(model.rowCount(), ROWS_SEARCHED)):
        index = model.index(row, 0)
        if index.data(MemoryRoles.CONTENT) == content:
            return index.data(MemoryRoles.ID)
    return None


class SelfTest:
    def __init__(self, server: FakeOpenAIServer, counter: QtMessageCounter) -> None:
        self.server = server
        self.counter = counter
        self.checks: list[Check] = []
        self.note_id: int | None = None
        self.answer_id: int | None = None

    async def _step(self, name: str, step: Callable[[], Awaitable[str]]) -> bool:
        try:
            detail = await step()
        except Exception as error:  # every failure becomes a reported check
            where = traceback.extract_tb(error.__traceback__)[-1]
            self.checks.append(
                Check(name, False, f"{type(error).__name__}: {error} (at {where.name})")
            )
            return False
        self.checks.append(Check(name, True, detail))
        return True

    async def scenario(self, session: AppController) -> None:
        steps = [
            ("window", lambda: self.window_opened(session)),
            ("note reaches the memory panel", lambda: self.save_note(session)),
            ("one turn", lambda: self.one_turn(session)),
            ("answer provenance", lambda: self.provenance(session)),
            ("learned fact reaches the memory panel", lambda: self.learned(session)),
            ("memory health charts", lambda: self.health_view(session)),
        ]
        for position, (name, step) in enumerate(steps):
            if not await self._step(name, step):
                for skipped, _ in steps[position + 1 :]:
                    self.checks.append(Check(skipped, False, f"not run: '{name}' failed"))
                break
        # The crash this guards against needs only a window, whatever failed above.
        window = session.window
        for path, action in window_paths(window).items():
            result = watch_none_refcount(path, action, PATH_RUNS[path], check_every=2)
            if not result.ok:
                # The count is process-wide: a background thread finishing its work can
                # let go of a few references once. A faulty binding loses on every run
                # (thousands per run), so it fails the second watch too.
                result = watch_none_refcount(path, action, PATH_RUNS[path], check_every=2)
            self.checks.append(Check(f"None refcount: {path}", result.ok, result.describe()))

    async def window_opened(self, session: AppController) -> str:
        window, assistant = session.window, session.assistant
        assert window.isVisible(), "the main window is not shown"
        if assistant.model_problem:
            raise RuntimeError(model_problem_text(assistant.model_problem))
        return (
            f"window shown; {window.conversations_model.rowCount()} conversations listed, "
            f"{window.memories_model.rowCount()} memories in the panel"
        )

    async def save_note(self, session: AppController) -> str:
        window = session.window
        session.memory_panel.save_note(NOTE)
        self.note_id = await wait_until(lambda: _memory_id_of(window, NOTE))
        return f"note #{self.note_id} saved from the window is in the panel's model"

    async def one_turn(self, session: AppController) -> str:
        window = session.window
        session.conversations.new_chat()
        window.composer.input.setPlainText(QUESTION)
        window.composer.send_button.click()
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and session.tasks.get(TURN_TASK) is None)
        answer = messages.index(1, 0)
        status = answer.data(MessageRoles.STATUS)
        if status != "complete":
            raise RuntimeError(f"the answer ended {status}: {answer.data(MessageRoles.ERROR)}")
        self.answer_id = answer.data(MessageRoles.ID)
        length = len(answer.data(MessageRoles.CONTENT) or "")
        if length < ANSWER_CHARACTERS:
            raise RuntimeError(f"only {length} of {ANSWER_CHARACTERS} characters arrived")
        calls = len(self.server.chat_requests())
        return (
            f"answer #{self.answer_id} streamed in full ({length} characters of Markdown; "
            f"{calls} call{'s' if calls != 1 else ''} to the scripted model so far)"
        )

    async def provenance(self, session: AppController) -> str:
        sources = await session.assistant.conversations.answer_sources(self.answer_id)
        used = [source.memory_id for source, _item in sources.rows]
        if self.note_id not in used:
            raise RuntimeError(f"the answer's sources {used} do not include note #{self.note_id}")
        shown = await wait_until(
            lambda: session.window.messages_model.index(1, 0).data(MessageRoles.SOURCES_COUNT)
        )
        return f"{len(used)} memories recorded for the answer, the note among them; {shown} shown"

    async def learned(self, session: AppController) -> str:
        window = session.window
        memory_id = await wait_until(lambda: _memory_id_of(window, LEARNED))
        return f"the processors learned #{memory_id} '{LEARNED}' and the panel shows it"

    async def health_view(self, session: AppController) -> str:
        # Opening it imports pyqtgraph, which the window loads only here: a frozen
        # build missing a part of it fails this check, not a user's click.
        dialog = session.memory_health.open()
        assert dialog is not None, "the memory health view did not open"
        try:
            health = await wait_until(lambda: dialog.health)
            if health.current < 2:
                raise RuntimeError(f"the view counts {health.current} memories, not the 2 saved")
            return (
                f"{health.current} current memories charted; {dialog.kind_status_chart.describe()}"
            )
        finally:
            dialog.close()


def run_offscreen(data_dir: Path) -> SelfTestReport:
    """What ``acai-desktop --self-test`` runs: the checks, in a process that has no QApplication
    yet, offscreen and with no keyring (a scripted run needs no API key)."""
    use_offscreen_platform()  # before the QApplication exists
    keep_away_from_the_keyring()
    return run_self_test(data_dir)


def run_self_test(data_dir: Path) -> SelfTestReport:
    """Run every check on a copy of the profile in ``data_dir``; never writes to it."""
    # With a binding that loses references to None, the window alone would abort the
    # process before any check could say why; spare references keep it going to the end.
    with SpareNoneReferences():
        return _run_checks(data_dir)


def _run_checks(data_dir: Path) -> SelfTestReport:
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="acai-self-test-") as scratch:
        profile = Profile.at(Path(scratch) / "profile").ensure()
        try:
            summary = snapshot_database(Profile.at(data_dir).database_path, profile.database_path)
        except Exception as error:
            return SelfTestReport([Check("profile", False, str(error))])
        checks.append(Check("profile", True, summary.describe()))
        with FakeOpenAIServer() as server:
            server.responder = responder
            use_scripted_model(profile, server.base_url)
            counter = QtMessageCounter().install()
            test = SelfTest(server, counter)
            try:
                run_in_session(AppController(profile), _with_deadline(test.scenario))
            except Exception as error:
                failure = f"{type(error).__name__}: {error}"
                if isinstance(error, TimeoutError):
                    failure = f"not finished within {DEADLINE_SECONDS:g} s"
                if not test.checks:  # the window's session never opened
                    test.checks.append(Check("window", False, failure))
                checks += test.checks
                checks.append(Check("shutdown", False, failure))
            else:
                checks += test.checks
                checks.append(Check("shutdown", True, "the session closed its services"))
            finally:
                counter.uninstall()
        samples = "; ".join(counter.samples[:3])
        checks.append(
            Check(
                "Qt warnings",
                counter.warnings == 0,
                f"{counter.warnings} Qt warnings" + (f": {samples}" if samples else ""),
            )
        )
    return SelfTestReport(checks)


def _with_deadline(scenario):
    async def bounded(session: AppController) -> None:
        await asyncio.wait_for(scenario(session), DEADLINE_SECONDS)

    return bounded
