"""The retrieval benchmark: synthetic profiles of given sizes, timed.

For each size it builds a real profile in a temporary directory (a SQLite file, real
WordLlama embeddings of varied chat-memory text), inserting through
:meth:`MemoryService.remember_many` in batches, then times :meth:`HybridRetriever.search`
(query embedding included) on questions in the style of a user's, and in the same run
the *floor*: a bare numpy exact top-k over the same in-memory vectors — the least any
exact semantic search must do. Each query's floor is the faster of the two numpy
products (BLAS ``@`` and the single-threaded ``einsum``), so the floor is never
flattered by a slow path. It is reported twice: the product and top-k alone
(``floor_p95_ms``), and with the query's embedding added
(``floor_with_embedding_p95_ms``), the like-for-like comparison.
"""

from __future__ import annotations

import gc
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.evaluation.harness import KEEP_EVERYTHING
from acai_desktop.core.evaluation.bench_text import EVENTS, NAMES, memory_texts
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.memory.session import open_memory_services
from acai_desktop.core.profile import Profile

DEFAULT_SIZES = (1000, 10000, 100000)
INSERT_BATCH = 5000
TOP_K = 10


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


async def bench_size(size: int, *, queries: int = 200, embedder: Embedder | None = None) -> dict:
    texts = memory_texts(size)
    questions = benchmark_queries(queries)
    with tempfile.TemporaryDirectory(prefix="acai-bench-") as directory:
        profile = Profile.at(Path(directory))
        async with open_memory_services(profile, embedder=embedder, policy=KEEP_EVERYTHING) as (
            store,
            service,
        ):
            started = time.perf_counter()
            for start in range(0, size, INSERT_BATCH):
                batch = texts[start : start + INSERT_BATCH]
                await service.remember_many([MemoryDraft(content=t) for t in batch])
            insert_seconds = time.perf_counter() - started
            await store.run(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
            db_mb = _file_megabytes(profile.data_dir)

            retriever = HybridRetriever(store, service.embedder, service.index)
            for question in questions[:20]:  # warm caches and lazy imports
                await retriever.search(question, TOP_K)
            gc.collect()
            latencies = []
            for question in questions:
                began = time.perf_counter()
                await retriever.search(question, TOP_K)
                latencies.append((time.perf_counter() - began) * 1000)

            matrix = np.ascontiguousarray(service.index.matrix)
            embed = service.embedder.embed
            floor, floor_embedding = [], []
            top_k = min(TOP_K, len(matrix) - 1)
            for question in questions:
                began = time.perf_counter()
                vector = (await embed([question]))[0]
                embedding_ms = (time.perf_counter() - began) * 1000
                fastest = float("inf")
                for product in (np.matmul, _einsum_product):
                    started_product = time.perf_counter()
                    scores = product(matrix, vector)
                    part = np.argpartition(-scores, top_k)[:top_k]
                    part[np.argsort(-scores[part])]
                    fastest = min(fastest, (time.perf_counter() - started_product) * 1000)
                floor.append(fastest)
                floor_embedding.append(fastest + embedding_ms)
    return {
        "size": size,
        "p50_ms": _percentile(latencies, 50),
        "p95_ms": _percentile(latencies, 95),
        "floor_p95_ms": _percentile(floor, 95),
        "floor_with_embedding_p95_ms": _percentile(floor_embedding, 95),
        "inserts_per_s": round(size / insert_seconds, 1),
        "db_mb": db_mb,
    }


async def run_benchmark(
    sizes: tuple[int, ...] = DEFAULT_SIZES, *, queries: int = 200, embedder=None
) -> dict:
    return {"sizes": [await bench_size(s, queries=queries, embedder=embedder) for s in sizes]}
