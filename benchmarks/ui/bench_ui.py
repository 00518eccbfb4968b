"""``python -m benchmarks bench ui``: how long the window's event loop stalls under load.

The real main window (offscreen when there is no display) shows a short conversation and,
in its memory panel, a profile of 10,000 memories: a temporary profile filled by the
retrieval benchmark's builder (real WordLlama embeddings), read by the panel's paged model
through :meth:`MemoryService.read_panel` / ``count_panel`` on a qasync loop, as in the
app. Then, at once:

- a 2,000-token Markdown answer with headings, lists, a table and code blocks streams
  into the chat at 200 tokens/s, chunk by chunk, through the same model path as a real
  answer (``MessagesModel.on_message_updated``);
- a processor works: a worker thread embeds text with the local WordLlama embedder and
  writes rows to an SQLite file (what the processors' executor does), and every half
  second a processor's fact is stored through the memory service and reaches the panel
  by its event, as in the app;
- a 5 ms timer measures the loop: each tick's lateness past its 5 ms is a sample.

It reports ``{"max_ms", "p99_ms", "samples"}``. Goal: max < 50 ms, p99 < 16 ms.

Then, in the same window, each large answer of :data:`LARGE_ANSWERS` (a 500 x 30 table,
a 2,000-row table, 1 MB of prose, 1 MB of code) streams in at
:data:`LARGE_CHARS_PER_SECOND` through the same path, and is then opened as a finished
answer of another conversation; ``large_answers`` reports, for each, the loop's
largest stall while it streamed and when it opened, and the process's resident
memory (peak while it streamed, and its growth over the case). Goal: no stall over
100 ms for any answer up to 1 MB.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path

PROBE_MS = 5
TOKENS = 2000
TOKENS_PER_SECOND = 200
PANEL_MEMORIES = 10_000
#: How fast a large answer arrives: far faster than any model (stress, not realism),
#: so a 1 MB answer streams in 10 s.
LARGE_CHARS_PER_SECOND = 100_000
LARGE_STALL_GOAL_MS = 100
AT = "2026-01-01T00:00:00+00:00"


def markdown_tokens(count: int = TOKENS) -> list[str]:
    """A Markdown answer of about ``count`` tokens (words and punctuation), with code."""
    sections = []
    n = 0
    while len("".join(sections).split(" ")) <= count:
        n += 1
        sections.append(
            f"## Step {n}: what to change\n\n"
            f"This step explains **why** the change matters and *how* to make it, with a "
            f"[reference](https://example.org/step/{n}) and `inline_code({n})` in the text. "
            "It keeps going for a while, as answers do, so that wrapping and layout are real.\n\n"
            "- first, read the current configuration\n"
            "- then, write the new value\n"
            "- finally, check that it took effect\n\n"
            f"```python\ndef step_{n}(config: dict) -> dict:\n"
            f'    """Apply step {n}."""\n'
            f"    value = config.get('step', 0) + {n}\n"
            "    return {**config, 'step': value}\n```\n\n"
            "| setting | before | after |\n|---|---|---|\n"
            f"| step | {n - 1} | {n} |\n\n"
        )
    words = "".join(sections).split(" ")
    tokens = [w + " " for w in words[:-1]] + [words[-1]]
    return tokens[:count]


class _Processor(threading.Thread):
    """Background work like a processor's: embeddings and SQLite writes, off the UI thread."""

    def __init__(self, folder: Path) -> None:
        super().__init__(name="bench-processor", daemon=True)
        self.folder = folder
        self.stop = threading.Event()
        self.batches = 0

    def run(self) -> None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
        db = sqlite3.connect(self.folder / "bench.sqlite3")
        db.execute("create table if not exists facts (id integer primary key, text, vector)")
        n = 0
        while not self.stop.is_set():
            texts = [f"The user said something durable, number {n + i}" for i in range(16)]
            vectors = embedder.embed_sync(texts)
            with db:
                db.executemany(
                    "insert into facts (text, vector) values (?, ?)",
                    [(t, v.tobytes()) for t, v in zip(texts, vectors, strict=True)],
                )
            n += len(texts)
            self.batches += 1
        db.close()


def _table(rows: int, columns: int) -> str:
    head = "| " + " | ".join(f"Column {c}" for c in range(columns)) + " |\n"
    rule = "|" + "|".join("---" for _ in range(columns)) + "|\n"
    body = "".join(
        "| " + " | ".join(f"value {r}.{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


def _prose(size: int) -> str:
    paragraph = (
        "This paragraph of a very long answer explains one more point with **bold** words, "
        "a [link](https://example.org/) and `inline code`, at the length answers have. " * 4
    ) + "\n\n"
    return (paragraph * (size // len(paragraph) + 1))[:size]


def _code(size: int) -> str:
    line = "def step(config: dict, n: int) -> dict:  return {**config, 'step': n + 1}\n"
    return "```python\n" + line * (size // len(line)) + "```\n"


#: (name, text) of each large answer case.
LARGE_ANSWERS = (
    ("table 500x30", lambda: "Here is the table.\n\n" + _table(500, 30)),
    ("table 2000x30", lambda: "Here is the table.\n\n" + _table(2000, 30)),
    ("prose 1 MB", lambda: _prose(1_000_000)),
    ("code 1 MB", lambda: _code(1_000_000)),
)


def resident_mb() -> float | None:
    """The process's resident memory now (Linux /proc; None elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def idle_lateness(seconds: float = 3.0) -> list[float]:
    """The same 5 ms timer on an idle loop: what the machine itself adds (its floor)."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer

    samples: list[float] = []
    clock = QElapsedTimer()
    last = [0]

    def probe() -> None:
        now = clock.nsecsElapsed()
        if last[0]:
            samples.append(max(0.0, (now - last[0]) / 1e6 - PROBE_MS))
        last[0] = now

    loop = QEventLoop()
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(PROBE_MS)
    timer.timeout.connect(probe)
    clock.start()
    timer.start()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    timer.stop()
    return samples


def run_ui_benchmark() -> dict:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.ui.app import create_application
    from acai_desktop.ui.garbage import MainThreadGarbageCollector
    from benchmarks.bench_retrieval import build_profile

    app = create_application()
    idle = idle_lateness()
    import qasync  # after PySide6, as in run_gui: qasync binds to the loaded Qt binding

    with tempfile.TemporaryDirectory(prefix="acai-bench-ui-") as folder:
        profile = Profile.at(Path(folder) / "profile")
        asyncio.run(build_profile(profile, PANEL_MEMORIES))
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        # As run_gui does: cycles are collected on the Qt thread only.
        collector = MainThreadGarbageCollector()
        collector.start()
        try:
            report = loop.run_until_complete(_measure(profile, Path(folder)))
        finally:
            loop.close()
            asyncio.set_event_loop(None)
            collector.stop()
    return report | {
        # The machine's own floor (an idle loop, same timer): a busy machine adds this.
        "idle_max_ms": round(max(idle, default=0.0), 1),
        "idle_p99_ms": round(_percentile(idle, 0.99), 1),
    }


async def _measure(profile, folder: Path) -> dict:

    from acai_desktop.core.events import EventBus
    from acai_desktop.core.memory.front_door import open_memory
    from acai_desktop.ui.main_window import MainWindow
    from benchmarks.retrieval_harness import KEEP_EVERYTHING

    bus = EventBus()
    async with open_memory(profile, policy=KEEP_EVERYTHING, events=bus) as service:
        window = MainWindow()
        window.resize(1280, 800)
        window.events.attach(bus)
        window.show()
        model = window.memories_model
        try:
            await model.attach(service.read_panel, service.count_panel)
            if model.total_count != PANEL_MEMORIES:
                raise RuntimeError(
                    f"the panel counts {model.total_count} memories, not {PANEL_MEMORIES}"
                )
            report = await _stream_under_load(window, service, folder)
            report["large_answers"] = [
                await _large_answer(window, number, name, make())
                for number, (name, make) in enumerate(LARGE_ANSWERS)
            ]
        finally:
            window.events.detach()
            await model.detach()
            window.close()
            window.deleteLater()
    return report


async def _stream_under_load(window, service, folder: Path) -> dict:
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer

    from acai_desktop.core.events import MessageDelta
    from acai_desktop.core.records.conversations import Message, MessageStatus

    model = window.memories_model
    earlier = [
        Message(
            1, 1, "user", "How do I change the configuration safely?", MessageStatus.COMPLETE, AT
        ),
        Message(
            2, 1, "assistant", "Carefully. **Step by step**, as below.", MessageStatus.COMPLETE, AT
        ),
        Message(3, 1, "user", "Show me every step, with code.", MessageStatus.COMPLETE, AT),
    ]
    window.show_conversation(1, "Benchmark", earlier)
    # As in the app, where the window has been up for a while before an answer streams:
    # a processor has stored a fact before (the first write pays for lazy imports and
    # for the vector index growing past the 10,000), the panel has laid out the cards of
    # its loaded page and Pygments is loaded.
    await _store_fact(service, 0)
    cards = window.memory_panel.list.itemDelegate()
    settled = time.monotonic() + 2.0
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline and (
        time.monotonic() < settled or len(cards._heights) < model.rowCount()
    ):
        await asyncio.sleep(0.05)
    answer = Message(4, 1, "assistant", "", MessageStatus.STREAMING, AT)
    window.messages_model.on_message_added(answer)

    tokens = markdown_tokens()
    samples: list[float] = []
    clock = QElapsedTimer()
    last = [0]
    streamed = {"text": "", "next": 0}
    stored: set[asyncio.Task] = set()
    added = [0]
    done = asyncio.get_running_loop().create_future()

    def probe() -> None:
        now = clock.nsecsElapsed()
        if last[0]:
            samples.append(max(0.0, (now - last[0]) / 1e6 - PROBE_MS))
        last[0] = now

    started = time.monotonic()

    def finish() -> None:
        if not done.done():
            done.set_result(None)

    def stream() -> None:
        # Chunks arrive at 200 tokens/s; send every token whose time has come.
        due = int((time.monotonic() - started) * TOKENS_PER_SECOND)
        while streamed["next"] < min(due, len(tokens)):
            token = tokens[streamed["next"]]
            streamed["text"] += token
            streamed["next"] += 1
            window.messages_model.on_message_updated(
                MessageDelta(4, 1, token, streamed["text"], MessageStatus.STREAMING)
            )
        if streamed["next"] >= len(tokens):
            window.messages_model.on_message_updated(
                MessageDelta(4, 1, "", streamed["text"], MessageStatus.COMPLETE)
            )
            stream_timer.stop()
            QTimer.singleShot(300, finish)  # the last batch and its layout included

    def store_memory() -> None:
        # As a processor stores a fact: through the service; the panel hears the event.
        added[0] += 1
        task = asyncio.ensure_future(_store_fact(service, added[0]))
        stored.add(task)
        task.add_done_callback(stored.discard)

    processor = _Processor(folder)
    processor.start()
    probe_timer = QTimer()
    probe_timer.setTimerType(Qt.TimerType.PreciseTimer)
    probe_timer.setInterval(PROBE_MS)
    probe_timer.timeout.connect(probe)
    stream_timer = QTimer()
    stream_timer.setTimerType(Qt.TimerType.PreciseTimer)
    stream_timer.setInterval(PROBE_MS)
    stream_timer.timeout.connect(stream)
    memory_timer = QTimer()
    memory_timer.setInterval(500)
    memory_timer.timeout.connect(store_memory)
    clock.start()
    started = time.monotonic()
    for timer in (probe_timer, stream_timer, memory_timer):
        timer.start()
    try:
        await done
    finally:
        for timer in (probe_timer, stream_timer, memory_timer):
            timer.stop()
        processor.stop.set()
        processor.join()
    seconds = time.monotonic() - started
    if stored:
        await asyncio.wait(stored)
    await wait_settled(model)
    return {
        "max_ms": round(max(samples, default=0.0), 1),
        "p99_ms": round(_percentile(samples, 0.99), 1),
        "samples": len(samples),
        "median_ms": round(statistics.median(samples), 2) if samples else 0.0,
        "tokens": len(tokens),
        "seconds": round(seconds, 1),
        # What the panel counts (from the database): the 10,000 and the facts stored
        # (one before measuring).
        "panel_memories": model.total_count,
        "panel_rows_loaded": model.rowCount(),
        "facts_stored": added[0],
        "processor_batches": processor.batches,
    }


class _LoopProbe:
    """A 5 ms timer's lateness, and the resident memory every 20 ms, until stopped.

    With each lateness, the CPU time the UI thread itself used in that interval: on a
    busy machine a tick is late also while the thread waits for a core, and the two
    figures tell a stall of our own work from one of the machine's."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        self.samples: list[float] = []
        self.busy: list[float] = []
        self.memory: list[float] = []
        self._clock = QElapsedTimer()
        self._last = 0
        self._last_cpu = 0
        self._ticks = 0
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(PROBE_MS)
        self._timer.timeout.connect(self._probe)

    def _probe(self) -> None:
        now, cpu = self._clock.nsecsElapsed(), time.thread_time_ns()
        if self._last:
            self.samples.append(max(0.0, (now - self._last) / 1e6 - PROBE_MS))
            self.busy.append((cpu - self._last_cpu) / 1e6)
        self._last, self._last_cpu = now, cpu
        self._ticks += 1
        if self._ticks % 4 == 0:
            rss = resident_mb()
            if rss is not None:
                self.memory.append(rss)

    def start(self) -> None:
        self._clock.start()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def max_ms(self) -> float:
        return round(max(self.samples, default=0.0), 1)

    def max_busy_ms(self) -> float:
        """The most CPU time the UI thread used between two ticks."""
        return round(max(self.busy, default=0.0), 1)


async def _large_answer(window, number: int, name: str, content: str) -> dict:
    """Stream ``content`` as an answer, then open it finished in another conversation."""
    from PySide6.QtCore import QTimer

    from acai_desktop.core.events import MessageDelta
    from acai_desktop.core.records.conversations import Message, MessageStatus

    conversation, answer_id = 100 + 2 * number, 1000 + 2 * number
    question = Message(
        answer_id - 1, conversation, "user", f"Show me {name}.", MessageStatus.COMPLETE, AT
    )
    window.show_conversation(conversation, name, [question])
    window.messages_model.on_message_added(
        Message(answer_id, conversation, "assistant", "", MessageStatus.STREAMING, AT)
    )
    await asyncio.sleep(0.3)  # the conversation laid out before measuring
    before = resident_mb()
    probe = _LoopProbe()
    done = asyncio.get_running_loop().create_future()
    sent = [0]
    started = time.monotonic()

    def stream() -> None:
        due = min(len(content), int((time.monotonic() - started) * LARGE_CHARS_PER_SECOND))
        if due > sent[0]:
            delta = content[sent[0] : due]
            sent[0] = due
            window.messages_model.on_message_updated(
                MessageDelta(answer_id, conversation, delta, content[:due], MessageStatus.STREAMING)
            )
        if sent[0] >= len(content):
            window.messages_model.on_message_updated(
                MessageDelta(answer_id, conversation, "", content, MessageStatus.COMPLETE)
            )
            timer.stop()
            QTimer.singleShot(300, lambda: done.done() or done.set_result(None))

    timer = QTimer()
    timer.setInterval(PROBE_MS)
    timer.timeout.connect(stream)
    probe.start()
    timer.start()
    try:
        await done
    finally:
        timer.stop()
        probe.stop()
    streamed = probe

    # The same answer, finished, in a conversation opened afresh (nothing cached).
    opened = _LoopProbe()
    opened.start()
    await asyncio.sleep(0.05)
    finished = Message(
        answer_id + 1, conversation + 1, "assistant", content, MessageStatus.COMPLETE, AT
    )
    window.show_conversation(conversation + 1, name, [question, finished])
    await asyncio.sleep(0.5)
    opened.stop()
    after = resident_mb()
    peak = max(streamed.memory + opened.memory, default=None)
    return {
        "case": name,
        "chars": len(content),
        "stream_max_ms": streamed.max_ms(),
        "stream_p99_ms": round(_percentile(streamed.samples, 0.99), 1),
        "stream_max_busy_ms": streamed.max_busy_ms(),
        "open_max_ms": opened.max_ms(),
        "open_max_busy_ms": opened.max_busy_ms(),
        "rss_peak_mb": round(peak) if peak is not None else None,
        "rss_growth_mb": round(after - before) if before is not None and after else None,
    }


async def _store_fact(service, number: int):
    """A fact as the critical-info processor stores it."""
    from acai_desktop.core.records.memories import Actor, Origin

    return await service.remember(
        f"The user mentioned a new fact, number {number}",
        category="Personal",
        confidence=0.8,
        origin=Origin.CRITICAL_INFO,
        actor=Actor.CRITICAL_INFO_PROCESSOR,
    )


async def wait_settled(model, timeout: float = 10.0) -> None:
    """Until the panel's model has read its pages and counts again."""
    deadline = time.monotonic() + timeout
    while not model.settled and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
