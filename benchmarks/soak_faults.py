"""The two heavy faults of ``bench soak``: a huge answer and a long import beside the turns.

A runaway model streams HUGE_ANSWER_MB (the app must cut it at its size limit and say
so). A ``memories import`` of many memories (100k by default) runs in its own process on
the soak's profile from turn LONG_IMPORT_TURN on, as a user importing a backup while
chatting: the turns beside it must neither fail nor lose their answers.

Kept light at import time: the ``bench soak`` command reads the defaults from here.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: The size of the huge answer's stream; the app keeps only up to its limit (1 MB).
HUGE_ANSWER_MB = 40
#: Pieces of the huge stream: big, as its cost is the app's cutting, not many small tokens.
HUGE_PIECE_CHARACTERS = 4000
#: The long import starts when this turn is sent, and runs beside the turns after it.
LONG_IMPORT_TURN = 5
DEFAULT_IMPORT_MEMORIES = 100_000
IMPORT_SECONDS = 600.0
#: How often the write-lock probe tries a write beside the import.
PROBE_SECONDS = 0.1


def huge_answer(turn: int) -> str:
    """HUGE_ANSWER_MB of plain paragraphs (a runaway model, not a table to render)."""
    paragraph = (
        f"Turn {turn} goes on and on: the model repeats itself without end, sentence "
        "after sentence, as a runaway loop or a hostile server would.\n\n"
    )
    size = HUGE_ANSWER_MB * 1_000_000
    return (paragraph * (size // len(paragraph) + 1))[:size]


# -- the long import -------------------------------------------------------------------


def write_import_file(path: Path, count: int) -> Path:
    """An export file of ``count`` distinct memories, as ``memories import`` reads it."""
    rng = random.Random(count)
    words = ("garden", "violin", "harbour", "lantern", "orchard", "compass", "meadow", "quill")
    memories = [
        {
            "uid": f"soak-import-{n:08d}",
            "content": f"Imported fact {n}: the user once kept a {rng.choice(words)} "
            f"near the {rng.choice(words)} (batch {n // 1000}).",
            "kind": "fact",
            "category": "Imported",
            "confidence": 0.8,
        }
        for n in range(count)
    ]
    document = {"format": "acai-desktop-memories", "version": 1, "memories": memories}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


class WriteLockProbe(threading.Thread):
    """How long a write beside the import waits for the lock: every PROBE_SECONDS,
    ``BEGIN IMMEDIATE`` (timed) then ``ROLLBACK``, until the import ends. What a turn's
    write waits, measured from outside both programs."""

    def __init__(self, database: Path, importing: Callable[[], bool]) -> None:
        super().__init__(name="write-lock probe", daemon=True)
        self.database, self.importing = database, importing
        self.waits_ms: list[float] = []

    def run(self) -> None:
        while self.importing():
            if self.database.exists():
                with contextlib.suppress(sqlite3.Error):  # the schema not made yet
                    self.waits_ms.append(self._wait_ms())
            time.sleep(PROBE_SECONDS)

    def _wait_ms(self) -> float:
        connection = sqlite3.connect(self.database, timeout=IMPORT_SECONDS, isolation_level=None)
        try:
            started = time.perf_counter()
            connection.execute("BEGIN IMMEDIATE")
            waited = (time.perf_counter() - started) * 1000
            connection.execute("ROLLBACK")
            return waited
        finally:
            connection.close()

    def figures(self) -> dict:
        waits = sorted(self.waits_ms)
        if not waits:
            return {"probes": 0}

        def at(share: float) -> float:
            return round(waits[min(len(waits) - 1, int(share * len(waits)))], 1)

        return {"probes": len(waits), "p50": at(0.5), "p99": at(0.99), "max": round(waits[-1], 1)}


@dataclass
class LongImport:
    """A ``memories import`` in its own process on the soak's profile."""

    memories: int
    process: subprocess.Popen | None = None
    started: float | None = None
    seconds: float | None = None
    #: Turns sent while the import ran.
    turns_beside: list[int] = field(default_factory=list)
    output: str = ""  # its JSON report
    errors: str = ""
    # Files, not pipes: nobody reads a pipe while the turns go, and a full one would stall it.
    _files: list = field(default_factory=list)
    _probe: WriteLockProbe | None = None

    def start(self, command: list[str], database: Path) -> None:
        from acai_lab.scripted_profile import NO_KEYRING

        self.started = time.monotonic()
        self._files = [tempfile.TemporaryFile("w+") for _ in range(2)]  # noqa: SIM115 (closed in finish)
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=self._files[0],
            stderr=self._files[1],
            env={**os.environ, **NO_KEYRING},
        )
        self._probe = WriteLockProbe(database, self.running)
        self._probe.start()

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def finish(self) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=IMPORT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._probe is not None:
            self._probe.join()
        for file in self._files:
            file.seek(0)
        self.output, self.errors = (file.read() for file in self._files)
        for file in self._files:
            file.close()
        if self.seconds is None and self.started is not None:
            self.seconds = round(time.monotonic() - self.started, 1)

    def note_exit(self) -> None:
        """Called as turns go: the import's duration, as soon as it is seen done."""
        if self.process is not None and self.seconds is None and not self.running():
            self.seconds = round(time.monotonic() - self.started, 1)

    def report(self, checked: dict) -> dict:
        if self.process is None:
            return {"memories": self.memories, "ran": False}
        imported = None
        with contextlib.suppress(json.JSONDecodeError, AttributeError):
            imported = json.loads(self.output).get("imported")
        beside = set(self.turns_beside)
        return {
            "memories": self.memories,
            "ran": True,
            "exit": self.process.returncode,
            "imported": imported,
            "seconds": self.seconds,
            "turns_beside": len(beside),
            # How long a write beside the import waited for the lock (ms).
            "lock_wait_ms": self._probe.figures() if self._probe else {},
            "turns_failed": sorted(beside & set(checked["incomplete_answers"])),
            "answers_lost": sorted(beside & set(checked["answers_lost"])),
            "messages_lost": sorted(beside & set(checked["lost_turns"])),
            "errors": self.errors[-600:] if self.process.returncode else "",
        }


def import_command(data_dir: Path, file: Path) -> list[str]:
    frozen = getattr(sys, "frozen", False)
    program = [sys.executable] if frozen else [sys.executable, "-m", "acai_desktop"]
    return [*program, "--data-dir", str(data_dir), "memories", "import", str(file), "--json"]
