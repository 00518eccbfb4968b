"""The documents benchmark: indexing throughput, search latency, evidence recall.

* **Indexing**: a synthetic manual (see :mod:`.documents_corpus`) of N pages of about
  3,000 characters, written once as a text PDF (:mod:`.pdf_writer`) and once as a plain
  text file (a "page" of text is those 3,000 characters), each indexed in a fresh
  profile through :meth:`DocumentService.index_now` — reading, chunking, embedding
  (WordLlama) and storing, exactly the background job's work. Pages per second, and
  the seconds of each stage.
* **Recall**: on the indexed PDF, each fact's question is searched (k=10); the rank of
  the first chunk holding the fact is recorded: recall@1/3/5/10 and the mean
  reciprocal rank. No target: it is the figure to watch when the ranking changes.
* **Latency**: a profile with N chunks of manual text (real WordLlama vectors, the
  full-text index filled by the triggers) and :meth:`DocumentService.search` (k=5,
  the query's embedding included) timed on the questions: p50 / p95 in ms, beside the
  *floor*: a bare numpy exact top-k over the same vectors with the query's embedding,
  timed right after each search (on a busy machine both slow down alike). Then, on the
  same questions, how far the index's two-stage search (see
  :mod:`acai_desktop.core.documents.vectors`) is from the exact one: the share of its
  semantic candidates among the exact nearest, and of the questions whose passages are
  the exact search's; and the process's resident memory with the profile loaded.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from acai_desktop.core import events as ev
from acai_desktop.core.clock import now_iso
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.query import process_query
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.store.database import Store
from benchmarks.documents_corpus import Fact, manual_pages
from benchmarks.pdf_writer import write_text_pdf

RECALL_AT = (1, 3, 5, 10)
LATENCY_K = 5
INSERT_BATCH = 5000
CHUNKS_PER_DOCUMENT = 500

Report = Callable[[str], None]


def _percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values), q)), 3)


async def _index_file(path: Path, workdir: Path, facts: list[Fact] | None) -> dict:
    events = EventBus()
    marks: dict[str, float] = {}

    def on_progress(event: ev.IndexingProgress) -> None:
        if event.done == event.total:
            marks[event.stage] = time.perf_counter()

    events.subscribe(ev.IndexingProgress, on_progress)
    store = await Store.open(workdir / f"{path.suffix[1:]}.sqlite3")
    try:
        embedder = WordLlamaEmbedder()
        embedder.embed_sync(["warm up"])  # loading the model is start-up, not indexing
        service = DocumentService(store, embedder, events)
        report = await service.add([path])
        start = time.perf_counter()
        (document,) = await service.index_now(report.job_ids)
        seconds = time.perf_counter() - start
        figures = {
            "seconds": round(seconds, 2),
            "chunks": document.chunk_count,
            "status": str(document.status),
            "read_s": round(marks.get("reading", start) - start, 2),
            "embed_s": round(marks.get("embedding", start) - marks.get("reading", start), 2),
            "store_s": round(marks.get("storing", start) - marks.get("embedding", start), 2),
        }
        if facts is not None:
            figures["recall"] = await _recall(service, facts)
        return figures
    finally:
        await store.close()


async def _recall(service: DocumentService, facts: list[Fact]) -> dict:
    ranks = []
    for fact in facts:
        hits = await service.search(fact.question, k=max(RECALL_AT))
        rank = next(
            (h.rank for h in hits if fact.key_phrase in " ".join(h.passage.content.split())),
            None,
        )
        ranks.append(rank)
    result = {
        f"recall@{k}": round(sum(1 for r in ranks if r and r <= k) / len(ranks), 3)
        for k in RECALL_AT
    }
    result["mrr@10"] = round(sum(1 / r for r in ranks if r) / len(ranks), 3)
    result["questions"] = len(ranks)
    return result


async def indexing_benchmark(pages: int, report: Report) -> dict:
    page_lines, facts = manual_pages(pages)
    with tempfile.TemporaryDirectory(prefix="acai-docs-bench-") as tmp:
        workdir = Path(tmp)
        pdf = write_text_pdf(workdir / "manual.pdf", page_lines)
        text = workdir / "manual.txt"
        text.write_text("\n\n".join(" ".join(lines) for lines in page_lines), encoding="utf-8")
        report(f"indexing a {pages}-page PDF ({pdf.stat().st_size / 1e6:.1f} MB)")
        pdf_figures = await _index_file(pdf, workdir, facts)
        report(f"indexing {pages} pages of plain text ({text.stat().st_size / 1e6:.1f} MB)")
        text_figures = await _index_file(text, workdir, None)
    for figures in (pdf_figures, text_figures):
        figures["pages_per_s"] = round(pages / max(figures["seconds"], 1e-9), 1)
    return {"pages": pages, "pdf": pdf_figures, "text": text_figures}


def _chunk_texts(count: int, seed: int = 9) -> list[str]:
    """``count`` passages of manual text, about 900 characters each."""
    page_lines, _ = manual_pages(max(1, count // 3 + 1), seed=seed)
    texts = []
    for lines in page_lines:
        words = " ".join(lines).split()
        for start in range(0, len(words), 150):
            texts.append(" ".join(words[start : start + 150]))
    random.Random(seed).shuffle(texts)
    while len(texts) < count:
        texts += texts[: count - len(texts)]
    return texts[:count]


def _insert_chunks(db, rows: list[tuple], documents: list[tuple]) -> None:
    with db.atomic():
        db.conn.executemany(
            "INSERT OR IGNORE INTO documents (id, path, name, size, kind, status, chunk_count, "
            "added_at) VALUES (?, ?, ?, 0, 'text', 'ready', ?, ?)",
            documents,
        )
        db.conn.executemany(
            "INSERT INTO chunks (document_id, ordinal, page, heading, content, token_count, "
            "embedding, embedding_model) VALUES (?, ?, NULL, '', ?, 200, ?, ?)",
            rows,
        )


def _floor_ms(matrix: np.ndarray, embedder: WordLlamaEmbedder, question: str) -> float:
    """The least any exact semantic search must do: embed the query, one product over
    every chunk's vector, the top k. Timed beside each search, so a busy machine slows
    both alike."""
    start = time.perf_counter()
    vector = embedder.embed_sync([question])[0]
    scores = np.einsum("ij,j->i", matrix, vector)
    np.argpartition(-scores, LATENCY_K)[:LATENCY_K]
    return (time.perf_counter() - start) * 1000


def _rss_mb() -> float | None:
    """The process's resident memory now (Linux), in MB: the profile's vectors loaded."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


async def _agreement_with_exact(service: DocumentService, questions: list[str]) -> dict:
    """How far the index's search is from the exact one on the same questions: the share
    of its nearest ``candidates`` whose exact cosine reaches the exact
    ``candidates``-th best (ties count as agreeing), and the share of questions whose
    ``LATENCY_K`` passages (ids, in order) are the ones the exact search returns."""
    vectors = service.vectors
    count = service.searcher.weights.candidates
    matrix = vectors._matrix
    shares, same_passages = [], 0
    for question in questions:
        vector = (await service.embedder.embed([_embedded(question)]))[0]
        exact = np.einsum("ij,j->i", matrix, vector)
        bar = np.sort(exact)[-count] if len(exact) > count else -1.0
        found, _ = vectors.nearest(vector, count)
        rows = [vectors._row_of[chunk_id] for chunk_id in found.tolist()]
        shares.append(float(np.mean(exact[rows] >= bar - 1e-6)) if len(found) else 1.0)
        approximate = [p.passage.chunk_id for p in await service.search(question, k=LATENCY_K)]
        exact_up_to, vectors.exact_up_to = vectors.exact_up_to, len(vectors) + 1
        try:
            precise = [p.passage.chunk_id for p in await service.search(question, k=LATENCY_K)]
        finally:
            vectors.exact_up_to = exact_up_to
        same_passages += approximate == precise
    return {
        "semantic_overlap_mean": round(float(np.mean(shares)), 4),
        "semantic_overlap_min": round(float(np.min(shares)), 4),
        "same_passages": round(same_passages / len(questions), 4),
    }


def _embedded(question: str) -> str:
    """What the search embeds of a question (see DocumentSearch.search_within)."""
    terms = process_query(question).terms
    return " ".join(terms) if terms else question


async def latency_benchmark(chunks: int, questions: list[str], report: Report) -> dict:
    embedder = WordLlamaEmbedder()
    texts = _chunk_texts(chunks)
    with tempfile.TemporaryDirectory(prefix="acai-docs-latency-") as tmp:
        store = await Store.open(Path(tmp) / "latency.sqlite3")
        try:
            at = now_iso()
            build_start = time.perf_counter()
            for start in range(0, chunks, INSERT_BATCH):
                batch = texts[start : start + INSERT_BATCH]
                vectors = embedder.embed_sync(batch)
                rows, documents = [], []
                for offset, (text, vector) in enumerate(zip(batch, vectors, strict=True)):
                    number = start + offset
                    document_id = number // CHUNKS_PER_DOCUMENT + 1
                    documents.append((document_id, f"/bench/{document_id}.txt",
                                      f"{document_id}.txt", CHUNKS_PER_DOCUMENT, at))  # fmt: skip
                    rows.append((document_id, number % CHUNKS_PER_DOCUMENT, text,
                                 vector.astype(np.float32).tobytes(), embedder.name))  # fmt: skip
                await store.run(_insert_chunks, rows, list(dict.fromkeys(documents)))
                report(f"chunks {min(start + INSERT_BATCH, chunks)}/{chunks}")
            build_s = time.perf_counter() - build_start
            service = DocumentService(store, embedder, EventBus())
            await service.load()
            for question in questions[:10]:  # warm the caches, as a running app has them
                await service.search(question, k=LATENCY_K)
            latencies, floor = [], []
            matrix = service.vectors._matrix  # the floor's matrix: the same vectors
            for question in questions:
                start = time.perf_counter()
                await service.search(question, k=LATENCY_K)
                latencies.append((time.perf_counter() - start) * 1000)
                floor.append(_floor_ms(matrix, embedder, question))
            rss_mb = _rss_mb()
            agreement = await _agreement_with_exact(service, questions)
        finally:
            await store.close()
    return {
        **agreement,
        "rss_mb": rss_mb,
        "chunks": chunks,
        "queries": len(latencies),
        "p50_ms": _percentile(latencies, 50),
        "p95_ms": _percentile(latencies, 95),
        "max_ms": round(max(latencies), 3),
        "floor_p95_ms": _percentile(floor, 95),
        "build_s": round(build_s, 1),
    }


async def documents_benchmark(pages: int, chunks: int, queries: int, report: Report) -> dict:
    indexing = await indexing_benchmark(pages, report)
    _, facts = manual_pages(max(pages, queries // 2 + 1), seed=17)
    questions = [fact.question for fact in facts][:queries]
    latency = await latency_benchmark(chunks, questions, report) if chunks else None
    return {"indexing": indexing, "latency": latency}
