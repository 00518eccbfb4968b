"""``acai-desktop bench ui``: how long the window's event loop stalls under load.

The real main window (offscreen when there is no display) holds 10,000 memories in its
panel and a short conversation. Then, at once:

- a 2,000-token Markdown answer with headings, lists, a table and code blocks streams
  into the chat at 200 tokens/s, chunk by chunk, through the same model path as a real
  answer (``MessagesModel.on_message_updated``);
- a processor works: a worker thread embeds text with the local WordLlama embedder and
  writes rows to an SQLite file (what the processors' executor does), and every half
  second a new memory reaches the panel, as when a processor stores a fact;
- a 5 ms timer measures the loop: each tick's lateness past its 5 ms is a sample.

It reports ``{"max_ms", "p99_ms", "samples"}``. Goal: max < 50 ms, p99 < 16 ms.
"""

from __future__ import annotations

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


def _memories(count: int):
    from acai_desktop.core.records import MemoryItem, MemoryKind, Origin

    topics = ["coffee", "running", "Python", "Lyon", "chess", "jazz", "hiking", "tea"]
    return [
        MemoryItem(
            i,
            MemoryKind.FACT,
            f"The user mentioned {topics[i % len(topics)]} in conversation number {i}",
            Origin.CRITICAL_INFO,
            AT,
            AT,
            category="Personal",
            confidence=0.8,
        )
        for i in range(1, count + 1)
    ]


class _Processor(threading.Thread):
    """Background work like a processor's: embeddings and SQLite writes, off the UI thread."""

    def __init__(self, folder: Path) -> None:
        super().__init__(name="bench-processor", daemon=True)
        self.folder = folder
        self.stop = threading.Event()
        self.batches = 0

    def run(self) -> None:
        from acai_desktop.core.embeddings.wordllama_embedder import WordLlamaEmbedder

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
    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer

    from acai_desktop.core.orchestrator import MessageDelta
    from acai_desktop.core.records import Message, MessageStatus
    from acai_desktop.ui.app import create_application
    from acai_desktop.ui.main_window import MainWindow

    app = create_application()
    idle = idle_lateness()
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    memories = _memories(PANEL_MEMORIES)
    window.show_memories(memories)
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
    # the panel has laid out its cards (a few at a time) and Pygments is loaded.
    cards = window.memory_panel.list.itemDelegate()
    settled = time.monotonic() + 2.0
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline and (
        time.monotonic() < settled or len(cards._heights) < PANEL_MEMORIES
    ):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    answer = Message(4, 1, "assistant", "", MessageStatus.STREAMING, AT)
    window.messages_model.on_message_added(answer)

    tokens = markdown_tokens()
    samples: list[float] = []
    clock = QElapsedTimer()
    last = [0]
    streamed = {"text": "", "next": 0}
    added = [0]
    loop = QEventLoop()

    def probe() -> None:
        now = clock.nsecsElapsed()
        if last[0]:
            samples.append(max(0.0, (now - last[0]) / 1e6 - PROBE_MS))
        last[0] = now

    started = time.monotonic()

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
            QTimer.singleShot(300, loop.quit)  # the last batch and its layout included

    def store_memory() -> None:
        added[0] += 1
        item = _memories(1)[0]
        from dataclasses import replace

        window.memories_model.on_memory_added(
            replace(item, id=PANEL_MEMORIES + added[0], content=f"A new fact {added[0]}")
        )

    with tempfile.TemporaryDirectory() as folder:
        processor = _Processor(Path(folder))
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
        loop.exec()
        for timer in (probe_timer, stream_timer, memory_timer):
            timer.stop()
        processor.stop.set()
        processor.join()
    seconds = time.monotonic() - started
    window.close()
    window.deleteLater()
    return {
        "max_ms": round(max(samples, default=0.0), 1),
        "p99_ms": round(_percentile(samples, 0.99), 1),
        "samples": len(samples),
        "median_ms": round(statistics.median(samples), 2) if samples else 0.0,
        "tokens": len(tokens),
        "seconds": round(seconds, 1),
        "panel_memories": window.memories_model.rowCount(),
        "processor_batches": processor.batches,
        # The machine's own floor (an idle loop, same timer): a busy machine adds this.
        "idle_max_ms": round(max(idle, default=0.0), 1),
        "idle_p99_ms": round(_percentile(idle, 0.99), 1),
    }
