"""``python -m benchmarks bench soak``: hundreds of turns through the real window, with faults.

The window runs in a *child process* (``benchmarks.ui.soak_driver``), offscreen, on a
temporary profile; this parent hosts the scripted model server, decides the faults, and
watches. A child that dies (an abort, a segfault, a kill) is counted as a crash and a new
one carries on from the next turn, so one crash can't end the bench or hide what followed.

Each turn the child sends a message carrying the marker ``[soak turn N]``, waits for the
Markdown answer to stream in (pressing Retry when a fault broke it), scrolls and paints
the chat, types in the memory search, and now and then edits a memory or writes a note.
Faults, by turn: a stream dropped mid-answer, a server error (500) on every attempt of
the first send, a malformed JSON reply to the fact extraction, a reply slower than the
read timeout, a huge answer (a 40 MB stream, which the app must cut at its size limit).
And once, from turn LONG_IMPORT_TURN on, a long ``memories import`` (100k memories by
default) runs in another process beside the turns, which must neither fail nor lose an
answer. At the end the child waits for the background jobs to finish.

The figures come from the database, not from the child's word: a turn's message is lost
when no user message carries its marker; it was not learned from when no critical-info
job names it; a job failed or was left un-run when its row says so.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.turns.answer_text import was_cut
from acai_lab.scripted_model import call_kind, fake_model, markdown_answer
from acai_lab.scripted_openai import FakeOpenAIServer, Reply
from acai_lab.scripted_profile import NO_KEYRING, use_scripted_model
from benchmarks import child_environment, python_command
from benchmarks.soak_faults import (
    DEFAULT_IMPORT_MEMORIES,
    HUGE_ANSWER_MB,
    HUGE_PIECE_CHARACTERS,
    LONG_IMPORT_TURN,
    LongImport,
    huge_answer,
    import_command,
    write_import_file,
)

DEFAULT_TURNS = 300
#: Read timeout of the soak profile: short, so the timeout fault costs seconds, not minutes.
READ_TIMEOUT_SECONDS = 3.0
ANSWER_CHARACTERS = 1500
#: Streamed in pieces of about this size: the soak is about lasting, not about the cost
#: of one token at a time (``bench ui`` measures that), and 300 turns must fit in minutes.
STREAM_PIECE_CHARACTERS = 120
#: A bench whose window keeps dying is reported, not retried forever.
MAX_CRASHES = 10
#: Generous per turn (a timeout fault plus a retry); a child silent longer is hung.
CHILD_SILENCE_SECONDS = 180.0
MARKER = re.compile(r"\[soak turn (\d+)\]")
FAULT_CYCLE = 20
FAULTS = {
    3: "dropped_stream",
    8: "server_error",
    10: "huge_answer",
    13: "malformed_extraction",
    18: "timeout",
}
FACTS = (
    "I live in {city}.",
    "I prefer {drink} in the morning.",
    "I work as a {job}.",
    "I plan to visit {city} next spring.",
)
CITIES = ("Lyon", "Osaka", "Lisbon", "Quito", "Tallinn", "Perth")
DRINKS = ("green tea", "black coffee", "mate", "hot chocolate")
JOBS = ("nurse", "carpenter", "data engineer", "teacher", "pilot")
QUESTIONS = (
    "Can you explain how a B-tree works, with a code example?",
    "Write a short Markdown checklist for moving house.",
    "What should I pack for a weekend in the mountains?",
    "Compare SQLite and PostgreSQL in a small table.",
)


def fault_of(turn: int) -> str | None:
    return FAULTS.get(turn % FAULT_CYCLE)


def turn_message(turn: int) -> str:
    """The user's message of ``turn``: a question, with a fact about them every other
    turn (and always on a malformed-extraction turn, so an extraction is asked for)."""
    question = QUESTIONS[turn % len(QUESTIONS)]
    text = f"[soak turn {turn}] {question}"
    if turn % 2 == 1 or fault_of(turn) == "malformed_extraction":
        fact = FACTS[turn % len(FACTS)].format(
            city=CITIES[turn % len(CITIES)],
            drink=DRINKS[turn % len(DRINKS)],
            job=JOBS[turn % len(JOBS)],
        )
        text = f"{fact} {text}"
    return text


def turn_of(text: str) -> int | None:
    found = MARKER.findall(text or "")
    return int(found[-1]) if found else None


class SoakModel:
    """The scripted model of the soak: the rule-based fake model, a Markdown answer per
    turn, and each turn's fault injected once (a Retry then succeeds)."""

    def __init__(self, crash_at_turns: frozenset[int] = frozenset()) -> None:
        #: Turns whose window is made to crash mid-answer: their first answer never ends,
        #: so the crash always lands before it is complete, however slow the machine.
        self.crash_at_turns = crash_at_turns
        self.lock = threading.Lock()
        self.injected: Counter[str] = Counter()
        self._chat_calls: Counter[int] = Counter()

    def __call__(self, body: dict) -> Reply:
        kind = call_kind(body)
        users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
        turn = turn_of(users[-1] if users else "")
        fault = fault_of(turn) if turn is not None else None
        if kind == "extraction" and fault == "malformed_extraction":
            self._count(fault)
            return Reply(raw='{"facts": [{"fact": "unterminated')
        if kind != "chat":
            return fake_model(body)
        with self.lock:
            self._chat_calls[turn] += 1
            attempt = self._chat_calls[turn]
        if fault == "huge_answer":  # every attempt: a cut answer is not retried
            self._count(fault)
            return Reply(text=huge_answer(turn), chunk_chars=HUGE_PIECE_CHARACTERS)
        answer = markdown_answer(ANSWER_CHARACTERS, lead=f"### Answer to turn {turn}")
        if turn in self.crash_at_turns and attempt == 1:
            return Reply(text=answer, chunk_chars=STREAM_PIECE_CHARACTERS, hold_after_chunks=1)
        if fault == "dropped_stream" and attempt == 1:
            self._count(fault)
            return Reply(text=answer, drop_after_chunks=4, chunk_chars=STREAM_PIECE_CHARACTERS)
        if fault == "server_error" and attempt <= 2:  # the first send and its own retry
            self._count(fault)
            return Reply(status=500, error_message="scripted server error")
        if fault == "timeout" and attempt == 1:
            self._count(fault)
            return Reply(text=answer, delay=READ_TIMEOUT_SECONDS + 1.0)
        return Reply(text=answer, chunk_chars=STREAM_PIECE_CHARACTERS)

    def _count(self, fault: str) -> None:
        with self.lock:
            self.injected[fault] += 1


# -- what the database says ------------------------------------------------------------


def _query_only(database: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(database, timeout=30)
    connection.execute("PRAGMA query_only = ON")
    return connection


def job_counts(database: Path) -> dict[str, int]:
    """Jobs by status."""
    if not database.exists():
        return {}
    with _query_only(database) as db:
        rows = db.execute("SELECT status, count(*) FROM jobs GROUP BY status").fetchall()
    return {status: count for status, count in rows}


def unfinished_jobs(counts: dict[str, int]) -> int:
    """Jobs neither done nor failed: queued, running, or waiting for something."""
    return sum(count for status, count in counts.items() if status not in ("done", "failed"))


def verify_turns(database: Path, turns: list[int]) -> dict:
    """Which turns' messages are in the database, and how each answer ended. A huge
    answer's turn must end cut at the limit, with the note saying so; the others
    complete."""
    with _query_only(database) as db:
        rows = db.execute(
            # The transcript as shown: a retried answer that had text is kept as a hidden
            # version beside the new one (docs/architecture.md, versions and branches).
            "SELECT id, conversation_id, role, content, status, error FROM messages "
            "WHERE NOT hidden ORDER BY id"
        ).fetchall()
        learned = db.execute(
            "SELECT json_extract(payload, '$.message_id') FROM jobs WHERE kind = 'critical_info'"
        ).fetchall()
    user_rows: dict[int, tuple] = {}
    answers: dict[int, tuple] = {}  # turn -> (status, error, content)
    for position, (_id, conversation, role, content, _status, _error) in enumerate(rows):
        turn = turn_of(content) if role == "user" else None
        if turn is None:
            continue
        user_rows[turn] = (_id, conversation)
        following = next(
            (r for r in rows[position + 1 :] if r[1] == conversation and r[2] == "assistant"),
            None,
        )
        answers[turn] = (following[4], following[5], following[3]) if following else None
    queued = {row[0] for row in learned}
    lost = [turn for turn in turns if turn not in user_rows]
    huge = [turn for turn in turns if turn in user_rows and fault_of(turn) == "huge_answer"]
    incomplete = [
        turn
        for turn in turns
        if turn in user_rows
        and turn not in huge
        and (answers[turn] is None or answers[turn][0] != "complete")
    ]
    # An answer whose text is gone: no row, or an empty one (a turn that failed at the
    # database would leave its answer 'streaming' and empty).
    answers_lost = [
        turn for turn in turns if turn in user_rows and not (answers[turn] or (0, 0, ""))[2]
    ]
    not_cut = [t for t in huge if answers[t] is None or not was_cut(answers[t][1])]
    # A message no critical-info job was queued for is never learned from (issue 7, #2).
    unlearned = [turn for turn in turns if turn in user_rows and user_rows[turn][0] not in queued]
    return {
        "lost_turns": lost,
        "incomplete_answers": incomplete,
        "answers_lost": answers_lost,
        "not_learned_from": unlearned,
        "huge_answer_turns": huge,
        "huge_answers_not_cut": not_cut,
        "largest_answer_bytes": max(
            (len(a[2].encode("utf-8")) for a in answers.values() if a is not None), default=0
        ),
    }


# -- the child processes -----------------------------------------------------------------


@dataclass
class ChildRun:
    first_turn: int
    started_rss_mb: float | None = None
    finished_rss_mb: float | None = None
    last_rss_mb: float | None = None
    sent: list[int] = field(default_factory=list)
    completed: list[int] = field(default_factory=list)
    qt_warnings: int = 0
    qt_samples: list[str] = field(default_factory=list)
    done: bool = False
    error: str | None = None  # a turn that never finished (the child said so and quit)
    returncode: int | None = None
    stderr_tail: str = ""


def child_command(data_dir: Path, first: int, last: int, crash_at: int | None) -> list[str]:
    """How to start the window child: this very benchmarks package, in a fresh process
    (``run_child`` puts the repository on its path)."""
    command = [*python_command(), "--data-dir", str(data_dir), "bench", "soak", "--child"]
    command += ["--first-turn", str(first), "--turns", str(last)]
    if crash_at is not None:
        command += ["--crash-at-turn", str(crash_at)]
    return command


def run_child(command: list[str], first: int, progress: Callable[[dict], None]) -> ChildRun:
    run = ChildRun(first_turn=first)
    env = child_environment({**os.environ, **NO_KEYRING, "QT_QPA_PLATFORM": "offscreen"})
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        )
        silence = threading.Timer(CHILD_SILENCE_SECONDS, process.kill)
        silence.start()
        try:
            for line in process.stdout:
                silence.cancel()
                silence = threading.Timer(CHILD_SILENCE_SECONDS, process.kill)
                silence.start()
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a library printing to stdout; not ours
                _take(run, event)
                progress(event)
            run.returncode = process.wait()
        finally:
            silence.cancel()
            if process.poll() is None:
                process.kill()
                process.wait()
        stderr.seek(0)
        text = stderr.read()
        # Its head says why (a fatal error comes first, then a dump of every thread).
        run.stderr_tail = text if len(text) <= 4000 else f"{text[:2000]}\n…\n{text[-2000:]}"
    return run


def _take(run: ChildRun, event: dict) -> None:
    kind = event.get("event")
    if "rss_mb" in event:
        run.last_rss_mb = event["rss_mb"]
    if kind == "sending":
        run.sent.append(event["turn"])
    elif kind == "turn":
        run.completed.append(event["turn"])
        if run.started_rss_mb is None:
            # After its first turn: the model loaded, the window painted, a turn streamed.
            run.started_rss_mb = event["rss_mb"]
    elif kind == "error":
        run.error = f"turn {event.get('turn')}: {event.get('error')}"
    elif kind == "done":
        run.done = True
        run.finished_rss_mb = event["rss_mb"]
    if "qt_warnings" in event:
        run.qt_warnings = event["qt_warnings"]
        run.qt_samples = event.get("qt_samples", run.qt_samples)


def crash_reason(stderr: str) -> str:
    """The line that says why a child died, when it said so."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("Fatal Python error", "Segmentation fault")):
            return line
    return lines[-1] if lines else "no message (killed by a signal?)"


def run_soak(
    turns: int = DEFAULT_TURNS,
    *,
    import_memories: int = DEFAULT_IMPORT_MEMORIES,
    crash_at_turns: frozenset[int] = frozenset(),
    before_counting: Callable[[Path], None] | None = None,
    progress: Callable[[dict], None] = lambda event: None,
) -> dict:
    """Run the bench; ``import_memories`` is the size of the long import (0: none),
    ``crash_at_turns`` (tests) makes the child abort mid-answer there,
    ``before_counting`` (tests) may tamper with the database before it is checked."""
    started = time.monotonic()
    model = SoakModel(crash_at_turns)
    runs: list[ChildRun] = []
    long_import = LongImport(import_memories)
    with tempfile.TemporaryDirectory(prefix="acai-soak-") as scratch:
        profile = Profile.at(Path(scratch) / "profile")
        import_file = Path(scratch) / "import.json"
        if import_memories and turns >= LONG_IMPORT_TURN:
            write_import_file(import_file, import_memories)

        def watch(event: dict) -> None:
            if event.get("event") == "sending":
                long_import.note_exit()
                if event["turn"] == LONG_IMPORT_TURN and import_file.exists():
                    long_import.start(
                        import_command(profile.data_dir, import_file), profile.database_path
                    )
                if long_import.running():
                    long_import.turns_beside.append(event["turn"])
            progress(event)

        with FakeOpenAIServer() as server:
            server.responder = model
            use_scripted_model(profile, server.base_url, read_timeout_seconds=READ_TIMEOUT_SECONDS)
            next_turn = 1
            crashes_left = set(crash_at_turns)
            # Until a child finishes (its last turns, then the background jobs); a child
            # started after the last turn only lets the jobs finish.
            while len(runs) <= MAX_CRASHES:
                crash_at = min((t for t in crashes_left if t >= next_turn), default=None)
                command = child_command(profile.data_dir, next_turn, turns, crash_at)
                run = run_child(command, next_turn, watch)
                runs.append(run)
                crashes_left.discard(crash_at)
                if run.done:
                    break
                # Carry on after the turn the child was in: its message was sent.
                next_turn = max([next_turn - 1, *run.sent, *run.completed]) + 1
            long_import.finish()
            if before_counting is not None:
                before_counting(profile.database_path)
            sent = sorted({turn for run in runs for turn in run.sent})
            checked = verify_turns(profile.database_path, sent)
            jobs = job_counts(profile.database_path)
            database_mb = round(database_megabytes(profile.database_path), 1)
    crashed = [run for run in runs if not run.done and run.error is None]
    measured = [r for r in runs if r.started_rss_mb is not None]
    return {
        "turns": turns,
        "turns_sent": len(sent),
        "crashes": len(crashed),
        "qt_warnings": sum(run.qt_warnings for run in runs),
        "rss_mb_start": measured[0].started_rss_mb if measured else None,
        "rss_mb_end": (measured[-1].finished_rss_mb or measured[-1].last_rss_mb)
        if measured
        else None,
        "window_processes": len(runs),
        "jobs_failed": jobs.get("failed", 0) + unfinished_jobs(jobs),
        "messages_lost": len(checked["lost_turns"]),
        "lost_turns": checked["lost_turns"],
        "incomplete_answers": checked["incomplete_answers"],
        "answers_lost": checked["answers_lost"],
        "long_import": long_import.report(checked),
        "huge_answers": {
            "stream_mb": HUGE_ANSWER_MB,
            "turns": len(checked["huge_answer_turns"]),
            "not_cut": checked["huge_answers_not_cut"],
        },
        "largest_answer_mb": round(checked["largest_answer_bytes"] / 1_000_000, 2),
        "database_mb": database_mb,
        "messages_not_learned_from": checked["not_learned_from"],
        "turns_stuck": [run.error for run in runs if run.error is not None],
        "jobs": jobs,
        "faults_injected": dict(model.injected),
        "qt_warning_samples": [s for run in runs for s in run.qt_samples][:5],
        "crash_reports": [
            {
                "first_turn": r.first_turn,
                "exit": r.returncode,
                "reason": crash_reason(r.stderr_tail),
                "stderr": r.stderr_tail[-800:],
            }
            for r in crashed
        ],
        "seconds": round(time.monotonic() - started, 1),
    }


def database_megabytes(database: Path) -> float:
    """The database with its write-ahead log (what the profile takes on disk)."""
    files = [database, database.with_name(database.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1_000_000


# -- in the child ----------------------------------------------------------------------


def resident_megabytes() -> float:
    """This process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)
