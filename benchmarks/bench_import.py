"""``python -m benchmarks bench import``: importing a ChatGPT export, 2,000 conversations
/ 50,000 messages by default.

Generates a synthetic export (:mod:`benchmarks.synthetic_export`) in a
temporary directory, imports it into a fresh profile the way `acai-desktop import
chatgpt FILE --learn all` does (read and check the whole file, write in batches, embed
every message for episodic recall, queue the learning jobs; the learning itself is not
run), then times retrieval over the imported profile. Prints the figures and the load
average.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.importer import read_export
from acai_desktop.core.conversations.chat_import.service import ConversationImports
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store.jobs import JobRepository
from benchmarks.synthetic_export import TOPICS, write_synthetic_export

QUERIES = 60


async def measure(directory: Path, conversations: int, per: int) -> dict:
    export = directory / "conversations.json"
    started = time.perf_counter()
    messages = write_synthetic_export(export, conversations, per)
    generated = time.perf_counter() - started
    started = time.perf_counter()
    read_export("chatgpt", export)
    parse_seconds = time.perf_counter() - started
    profile = Profile.at(directory / "profile")
    async with open_memory(profile) as service:
        store = service.store
        imports = ConversationImports(store, service, EventBus(), JobRepository(store))
        started = time.perf_counter()
        report = await imports.import_file("chatgpt", export, LearningBudget.parse("all"))
        import_seconds = time.perf_counter() - started
        retriever = HybridRetriever(
            store, service.embedder, service.index, messages=service.episodes.index
        )
        words = [word for topic in TOPICS.values() for word in topic.split()]
        latencies = []
        for number in range(QUERIES):
            query = f"what did I say about {words[number % len(words)]} and {words[-number]}"
            begin = time.perf_counter()
            await retriever.search(query, 10)
            latencies.append((time.perf_counter() - begin) * 1000)
    latencies.sort()
    return {
        "conversations": report.conversations,
        "messages": report.messages,
        "expected_messages": messages,
        "learning_jobs": report.learning_jobs,
        "export_mb": export.stat().st_size / 1e6,
        "generate_s": generated,
        "parse_s": parse_seconds,
        "import_s": import_seconds,
        "db_mb": profile.database_path.stat().st_size / 1e6,
        "retrieval_p50_ms": statistics.median(latencies),
        "retrieval_p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
    }


def format_report(figures: dict) -> str:
    return "\n".join(
        [
            f"import chatgpt: {figures['conversations']:,} conversations, "
            f"{figures['messages']:,} messages (export {figures['export_mb']:.1f} MB) in "
            f"{figures['import_s']:.1f} s (of which reading and checking the file "
            f"{figures['parse_s']:.1f} s); {figures['messages'] / figures['import_s']:,.0f} "
            f"messages/s; {figures['learning_jobs']:,} learning jobs queued; database "
            f"{figures['db_mb']:.0f} MB",
            f"retrieval afterwards ({QUERIES} queries, k=10): p50 "
            f"{figures['retrieval_p50_ms']:.2f} ms, p95 {figures['retrieval_p95_ms']:.2f} ms",
            "load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(
                *figures["load_before"], *figures["load_after"]
            ),
        ]
    )


def run_import_benchmark(conversations: int, per: int) -> dict:
    """Every figure of one run, in a temporary directory removed afterwards."""
    before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="acai-bench-import-") as directory:
        figures = asyncio.run(measure(Path(directory), conversations, per))
    figures |= {"load_before": before, "load_after": os.getloadavg()}
    if figures["messages"] != figures["expected_messages"]:
        raise RuntimeError(
            f"messages went missing: {figures['messages']} of {figures['expected_messages']}"
        )
    return figures
