"""``python -m benchmarks bench soak --store URL --processes 2``: several app processes
on one PostgreSQL database behave as one memory (issue 27, items 3 and 6).

Each process (:mod:`benchmarks.store_soak_child`) has a data dir of its own, as each
computer has, and all share one database: a new one created on the server for the run
and dropped after (``benchmarks/scratch_store.py``). They open together (each under its
own data dir's profile lock), then send the turns between them at once, turn N by
process N mod P, against the scripted model server this parent hosts, each one's job
runner learning in the background from the shared queue. When the queue is empty, each
process in turn edits a memory learned from its own messages while every other one
waits to be told of it, as its memory panel would be.

The figures come from the database and the model server, not from the children's word:
a turn is lost when no user message carries its marker; a message is learned twice when
more than one critical-info job names it, or its one job was claimed more than once
(``attempts``), or the model was asked to triage it more than once.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.profile.paths import Profile
from acai_lab.scripted_model import call_kind, fake_model, last_user_text
from acai_lab.scripted_openai import FakeOpenAIServer, Reply
from acai_lab.scripted_profile import NO_KEYRING, use_scripted_model
from benchmarks import child_environment, python_command
from benchmarks.bench_soak import CITIES, DRINKS, FACTS, JOBS, QUESTIONS, turn_of

DEFAULT_TURNS = 200
DEFAULT_PROCESSES = 2
#: A child silent this long is hung (a turn, or the wait for the whole queue).
CHILD_SILENCE_SECONDS = 600.0


def turn_message(turn: int) -> str:
    """Turn ``turn``'s message: a fact about the user (so there is something to learn)
    and a question, with the marker ``[soak turn N]``."""
    fact = FACTS[turn % len(FACTS)].format(
        city=CITIES[turn % len(CITIES)],
        drink=DRINKS[turn % len(DRINKS)],
        job=JOBS[turn % len(JOBS)],
    )
    return f"{fact} [soak turn {turn}] {QUESTIONS[turn % len(QUESTIONS)]}"


class CountingModel:
    """The scripted model, counting the triage calls (a critical-info job's first
    question) per turn: a message learned from twice is asked about twice."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.triaged: Counter[int] = Counter()

    def __call__(self, body: dict) -> Reply:
        if call_kind(body) == "triage":
            turn = turn_of(last_user_text(body))
            if turn is not None:
                with self.lock:
                    self.triaged[turn] += 1
        return fake_model(body)


@dataclass
class Child:
    number: int
    turns: list[int]
    process: subprocess.Popen
    said: queue.Queue = field(default_factory=queue.Queue)
    sent: list[int] = field(default_factory=list)
    not_complete: list[int] = field(default_factory=list)  # turns whose answer failed

    def tell(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, event: str) -> dict:
        """The child's next ``event`` (its ``turn`` lines on the way are noted)."""
        while True:
            try:
                said = self.said.get(timeout=CHILD_SILENCE_SECONDS)
            except queue.Empty:
                raise RuntimeError(
                    f"process {self.number} silent while waiting for {event}"
                ) from None
            if said is None:
                raise RuntimeError(
                    f"process {self.number} ended (exit {self.process.wait()}) "
                    f"while waiting for {event}"
                )
            if said["event"] == "turn":
                self.sent.append(said["turn"])
                if said["status"] != "complete":
                    self.not_complete.append(said["turn"])
            if said["event"] == event:
                return said


def _start_child(number: int, data_dir: Path, database: str, turns: list[int], stderr) -> Child:
    command = [*python_command("benchmarks.store_soak_child"), "--data-dir", str(data_dir)]
    command += ["--store", database, "--turns", ",".join(map(str, turns))]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=child_environment({**os.environ, **NO_KEYRING}),
    )
    child = Child(number, turns, process)

    def read() -> None:
        for line in process.stdout:
            try:
                child.said.put(json.loads(line))
            except json.JSONDecodeError:
                continue  # a library printing to stdout; not ours
        child.said.put(None)

    threading.Thread(target=read, daemon=True).start()
    return child


def _tail(log: Path, characters: int = 3000) -> str:
    text = log.read_text(encoding="utf-8", errors="replace")
    return f"{log.name}: …{text[-characters:]}" if len(text) > characters else f"{log.name}: {text}"


def _edits_reach_the_others(children: list[Child]) -> list[dict]:
    """Each process edits a memory learned from its messages; each other one says when
    it was told. The delay is from the edit's commit to the other process's event."""
    edits = []
    for editor in children:
        editor.tell("pick")
        memory_id = editor.until("picked")["memory_id"]
        if memory_id is None:
            edits.append({"by": editor.number, "memory_id": None, "reached": []})
            continue
        text = f"Edited on process {editor.number} after the soak"
        others = [child for child in children if child is not editor]
        for other in others:
            other.tell(f"expect {memory_id} {text}")
            other.until("watching")
        editor.tell(f"edit {memory_id} {text}")
        edited_at = editor.until("edited")["at"]
        reached = [
            {"process": other.number, "ms": round((other.until("seen")["at"] - edited_at) * 1000)}
            for other in others
        ]
        edits.append({"by": editor.number, "memory_id": memory_id, "reached": reached})
    return edits


# -- what the database says ------------------------------------------------------------

_USER_MESSAGES = "SELECT id, content FROM messages WHERE role = 'user'"
_LEARNING_JOBS = (
    "SELECT (payload::json ->> 'message_id')::bigint, status, attempts FROM jobs "
    "WHERE kind = 'critical_info'"
)


def count_in_database(database: str, sent: list[int]) -> dict:
    import psycopg

    with psycopg.connect(database) as db:
        users = db.execute(_USER_MESSAGES).fetchall()
        learning = db.execute(_LEARNING_JOBS).fetchall()
        statuses = dict(db.execute("SELECT status, count(*) FROM jobs GROUP BY status").fetchall())
        memories = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    rows_of_turn: dict[int, list[int]] = {}
    for message_id, content in users:
        turn = turn_of(content)
        if turn is not None:
            rows_of_turn.setdefault(turn, []).append(message_id)
    jobs_of: dict[int, list[tuple[str, int]]] = {}
    for message_id, status, attempts in learning:
        jobs_of.setdefault(message_id, []).append((status, attempts))
    messages = [m for turn in sent for m in rows_of_turn.get(turn, [])]
    done = {m: sum(1 for status, _ in jobs_of.get(m, []) if status == "done") for m in messages}
    claims = {m: sum(attempts for _, attempts in jobs_of.get(m, [])) for m in messages}
    return {
        "messages_lost": [turn for turn in sent if turn not in rows_of_turn],
        "messages_stored_twice": [turn for turn in sent if len(rows_of_turn.get(turn, [])) > 1],
        "learned_twice": sorted(m for m in messages if done[m] > 1 or claims[m] > 1),
        "not_learned": sorted(m for m in messages if done[m] == 0),
        "learning_jobs_done": sum(done.values()),
        "learning_claims": sum(claims.values()),
        "jobs": statuses,
        "memories": memories,
    }


def run_store_soak(
    database: str,
    turns: int = DEFAULT_TURNS,
    processes: int = DEFAULT_PROCESSES,
    *,
    before_counting: Callable[[str], None] | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> dict:
    """The soak on ``database`` (a PostgreSQL URL, an empty database); returns its
    figures. ``before_counting`` (tests) may tamper with the database before it is
    checked."""
    started = time.monotonic()
    model = CountingModel()
    children: list[Child] = []
    with contextlib.ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="acai-store-soak-"))
        server = stack.enter_context(FakeOpenAIServer())
        server.responder = model
        try:
            for number in range(1, processes + 1):
                profile = Profile.at(Path(scratch) / f"computer-{number}")
                use_scripted_model(profile, server.base_url)
                own = [turn for turn in range(1, turns + 1) if turn % processes == number - 1]
                log = stack.enter_context(open(Path(scratch) / f"log-{number}", "w+"))
                children.append(_start_child(number, profile.data_dir, database, own, log))
            for child in children:
                child.until("ready")
            progress(f"{processes} processes open on the store")
            for child in children:
                child.tell("go")
            for child in children:
                child.until("idle")
                progress(f"process {child.number}: {len(child.sent)} turns sent, queue empty")
            edits = _edits_reach_the_others(children)
            for child in children:
                child.tell("quit")
                child.until("closed")
        except RuntimeError as error:  # a child died or hung: say what it said last
            tails = [_tail(Path(scratch) / f"log-{child.number}") for child in children]
            raise RuntimeError(f"{error}\n" + "\n".join(tails)) from None
        finally:
            for child in children:
                if child.process.poll() is None:
                    child.process.kill()
                child.process.wait()
    sent = sorted(turn for child in children for turn in child.sent)
    if before_counting is not None:
        before_counting(database)
    counted = count_in_database(database, sent)
    triaged_twice = sorted(turn for turn, calls in model.triaged.items() if calls > 1)
    return {
        "turns": turns,
        "processes": processes,
        "turns_sent": len(sent),
        "turns_by_process": {child.number: len(child.sent) for child in children},
        "seconds": round(time.monotonic() - started, 1),
        "answers_not_complete": sorted(t for child in children for t in child.not_complete),
        **counted,
        "turns_triaged": len(model.triaged),
        "triaged_twice": triaged_twice,
        "edits": edits,
    }


def format_report(report: dict) -> str:
    reached = [hop for edit in report["edits"] for hop in edit["reached"]]
    expected = sum(report["processes"] - 1 for _ in report["edits"])
    delays = sorted(hop["ms"] for hop in reached)
    return "\n".join(
        [
            f"processes:      {report['processes']} (data dirs of their own, one database), "
            f"open at once",
            f"turns:          {report['turns_sent']} of {report['turns']} sent "
            f"{report['turns_by_process']} in {report['seconds']} s",
            f"messages lost:  {len(report['messages_lost'])} {report['messages_lost'] or ''}",
            f"stored twice:   {len(report['messages_stored_twice'])}",
            f"answers not complete: {len(report['answers_not_complete'])}",
            f"learned twice:  {len(report['learned_twice'])} (a message with more than one "
            f"critical-info job done or claim); asked the model to triage twice: "
            f"{len(report['triaged_twice'])} (turns triaged: {report['turns_triaged']})",
            f"not learned:    {len(report['not_learned'])}",
            f"learning jobs:  {report['learning_jobs_done']} done, "
            f"{report['learning_claims']} claims; all jobs by status: {report['jobs']}",
            f"memories:       {report['memories']}",
            f"edits reaching the other processes: {len(reached)} of {expected}, "
            f"delay after the commit {delays} ms",
        ]
    ).replace(" \n", "\n")
