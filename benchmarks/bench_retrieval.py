"""The retrieval benchmark: synthetic profiles of given sizes, timed.

For each size it builds a real profile in a temporary directory (a SQLite file, real
WordLlama embeddings of varied chat text) holding that many retrievable items: half
memories, inserted through :meth:`MemoryService.remember_many` in batches, and half
messages of past conversations (episodic recall: full-text indexed with their
neighbours by the database's triggers, embedded by the memory service), then times
:meth:`HybridRetriever.search`
(query embedding included) on questions in the style of a user's, and in the same run
the *floor*: a bare numpy exact top-k over the same in-memory vectors — the least any
exact semantic search must do. Each query's floor is the fastest of three numpy
products (BLAS ``@``, the single-threaded ``einsum``, and ``vecdot``, the one the
index uses), so the floor is never flattered by a slow path; its matrix holds every
item's vector, memories and messages.
It is reported twice: the product and top-k alone
(``floor_p95_ms``), and with the query's embedding added
(``floor_with_embedding_p95_ms``), the like-for-like comparison.

With a PostgreSQL server (``--store postgresql://…``) each size is measured on SQLite
and then on a database of its own on that server (``benchmarks/scratch_store.py``), and
each row names its store.
"""

from __future__ import annotations

import gc
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from acai_desktop.core.clock import now_iso
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.context_builder import recall_reach
from acai_desktop.core.memory.front_door import memory_on, open_memory
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.memory.service import MemoryDraft, MemoryService
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store.conversations import create_conversation
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.store_url import open_store
from acai_desktop.core.turns.planner import plan_message
from benchmarks.chat_corpus import EVENTS, NAMES, memory_texts
from benchmarks.retrieval_harness import KEEP_EVERYTHING
from benchmarks.scratch_store import scratch_store

DEFAULT_SIZES = (1000, 10000, 100000)
INSERT_BATCH = 5000
TOP_K = 10
#: How deep a chat turn reads the ranking at the default 3,000-token budget.
TURN_REACH = recall_reach(3000)
TURNS_PER_CONVERSATION = 40


def benchmark_queries(count: int, *, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    queries = []
    while len(queries) < count:
        event = rng.choice(EVENTS)
        speaker, other = rng.sample(NAMES, 2)
        values = {slot: rng.choice(options) for slot, options in event.slots.items()}
        values.update(S=speaker, O=other, date="8 May 2023")
        question = rng.choice(event.questions)[0]
        queries.append(question.format(**values))
    return queries


def _einsum_product(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    return np.einsum("ij,j->i", matrix, vector)


def _percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values), q)), 3)


def _file_megabytes(directory: Path) -> float:
    total = sum(p.stat().st_size for p in directory.glob("*.sqlite3*") if p.is_file())
    return round(total / 1e6, 2)


async def fill_with_memories(store: Store, service: MemoryService, size: int) -> float:
    """Insert ``size`` varied memories (real embeddings) in batches through the service,
    fold the WAL into the file, and return the seconds the inserts took."""
    texts = memory_texts(size)
    started = time.perf_counter()
    for start in range(0, size, INSERT_BATCH):
        batch = texts[start : start + INSERT_BATCH]
        await service.remember_many([MemoryDraft(content=t) for t in batch])
    insert_seconds = time.perf_counter() - started
    await store.run(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
    return insert_seconds


async def build_profile(profile: Profile, size: int, *, embedder: Embedder | None = None) -> None:
    """A profile on disk holding ``size`` active memories, for start-up measurements."""
    async with open_memory(profile, embedder=embedder, policy=KEEP_EVERYTHING) as service:
        store = service.store
        await fill_with_memories(store, service, size)


def _store_conversations(db, texts: list[str]) -> None:
    """``texts`` as the turns of conversations of TURNS_PER_CONVERSATION messages."""
    with db.atomic():
        conversation_id = None
        for position, text in enumerate(texts):
            if position % TURNS_PER_CONVERSATION == 0:
                conversation_id = create_conversation(db, f"Chat {position}").id
            db.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at) "
                "VALUES (?, ?, ?, ?)",
                [conversation_id, "user" if position % 2 == 0 else "assistant", text, now_iso()],
            )


def _database_megabytes(db) -> float:
    """The PostgreSQL database's size on the server."""
    size = db.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    return round(size / 1e6, 2)


async def bench_size(
    size: int,
    *,
    queries: int = 200,
    embedder: Embedder | None = None,
    server: str | None = None,
) -> dict:
    memory_count = size - size // 2
    texts = memory_texts(memory_count)
    turns = memory_texts(size // 2, seed=29)
    questions = benchmark_queries(queries)
    if embedder is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    with (
        tempfile.TemporaryDirectory(prefix="acai-bench-") as directory,
        scratch_store(server, Path(directory)) as location,
    ):
        store = await open_store(location)
        try:
            service = await memory_on(store, embedder, EventBus(), KEEP_EVERYTHING)
            started = time.perf_counter()
            for start in range(0, memory_count, INSERT_BATCH):
                batch = texts[start : start + INSERT_BATCH]
                await service.remember_many([MemoryDraft(content=t) for t in batch])
            for start in range(0, len(turns), INSERT_BATCH):
                await store.run(_store_conversations, turns[start : start + INSERT_BATCH])
            await service.episodes.embed_missing()
            insert_seconds = time.perf_counter() - started
            # The profile as the app keeps it: every start merges the full-text
            # segments that bulk inserts leave (MemoryService.upkeep_after_start).
            await service.upkeep.merge_full_text()
            if store.dialect == "postgresql":
                db_mb = await store.run(_database_megabytes)
            else:
                await store.run(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
                db_mb = _file_megabytes(Path(directory))

            retriever = HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            )
            for question in questions[:20]:  # warm caches and lazy imports
                await retriever.search(question, TOP_K)
            gc.collect()
            latencies, turn_latencies = [], []
            for question in questions:
                began = time.perf_counter()
                await retriever.search(question, TOP_K)
                latencies.append((time.perf_counter() - began) * 1000)
                # The search a chat turn makes at the default budget: the plan's k, read
                # as deep as the budget reaches.
                plan = plan_message(question)
                began = time.perf_counter()
                await retriever.search(question, plan.retrieval_k, reach=TURN_REACH)
                turn_latencies.append((time.perf_counter() - began) * 1000)

            matrix = np.ascontiguousarray(
                np.concatenate([service.index.matrix, service.episodes.index.matrix])
            )
            embed = service.embedder.embed
            floor, floor_embedding = [], []
            top_k = min(TOP_K, len(matrix) - 1)
            for question in questions:
                began = time.perf_counter()
                vector = (await embed([question]))[0]
                embedding_ms = (time.perf_counter() - began) * 1000
                fastest = float("inf")
                for product in (np.matmul, _einsum_product, np.vecdot):
                    started_product = time.perf_counter()
                    scores = product(matrix, vector)
                    part = np.argpartition(-scores, top_k)[:top_k]
                    part[np.argsort(-scores[part])]
                    fastest = min(fastest, (time.perf_counter() - started_product) * 1000)
                floor.append(fastest)
                floor_embedding.append(fastest + embedding_ms)
        finally:
            await store.close()
    return {
        "size": size,
        "store": "postgresql" if server else "sqlite",
        "p50_ms": _percentile(latencies, 50),
        "p95_ms": _percentile(latencies, 95),
        "turn_p50_ms": _percentile(turn_latencies, 50),
        "turn_p95_ms": _percentile(turn_latencies, 95),
        "floor_p95_ms": _percentile(floor, 95),
        "floor_with_embedding_p95_ms": _percentile(floor_embedding, 95),
        "inserts_per_s": round(size / insert_seconds, 1),
        "db_mb": db_mb,
    }


async def run_benchmark(
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    *,
    queries: int = 200,
    embedder=None,
    server: str | None = None,
) -> dict:
    """Each size on SQLite, and with ``server`` (a PostgreSQL URL) on it too, beside."""
    rows = []
    for size in sizes:
        rows.append(await bench_size(size, queries=queries, embedder=embedder))
        if server is not None:
            rows.append(await bench_size(size, queries=queries, embedder=embedder, server=server))
    return {"sizes": rows}
