"""The chunks' vector index in two stages (sign codes, then exact cosines) against the
exact search, on real WordLlama vectors of manual text: the nearest chunks, the
spread of the cosines the relevance floor reads, a conversation's scope, and the
index kept current as documents are indexed again and removed."""

from __future__ import annotations

import numpy as np
import pytest

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.documents.sign_codes import SignCodes
from acai_desktop.core.documents.vectors import ChunkVectors, CosineSpread
from acai_desktop.core.events import EventBus
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store.database import Store
from benchmarks.documents_corpus import manual_pages
from tests.support.aio import run

DIMENSIONS = WordLlamaEmbedder.dimensions
CHUNKS_PER_DOCUMENT = 250
NEAREST = 10


@pytest.fixture(scope="module")
def manual() -> tuple[np.ndarray, np.ndarray]:
    """(vectors of 3,000 passages of a synthetic manual, of 40 of its questions). Its
    passages share one vocabulary, so their cosines crowd together: a hard case for
    a coarse first stage."""
    pages, facts = manual_pages(200, seed=3)
    words = " ".join(" ".join(lines) for lines in pages).split()
    passages = [" ".join(words[start : start + 30]) for start in range(0, len(words), 30)]
    embedder = WordLlamaEmbedder()
    chunks = np.asarray(embedder.embed_sync(passages[:3000]), np.float32)
    questions = np.asarray(embedder.embed_sync([f.question for f in facts[:40]]), np.float32)
    return chunks, questions


def two_stage(shortlist: int = 300) -> ChunkVectors:
    """An index that searches every collection in two stages, scoring ``shortlist``
    rows exactly (a tenth of the test's collection)."""
    return ChunkVectors(DIMENSIONS, exact_up_to=0, shortlist=shortlist)


def exact_nearest(vectors: np.ndarray, ids: np.ndarray, query: np.ndarray, count: int):
    cosines = np.einsum("ij,j->i", vectors, query)  # as the index computes each row's
    order = np.argsort(-cosines, kind="stable")[:count]
    return ids[order], CosineSpread.of(cosines)


def assert_same_spread(found: CosineSpread, expected: CosineSpread) -> None:
    assert found.items == expected.items
    assert found.mean == pytest.approx(expected.mean, abs=1e-5)
    assert found.spread == pytest.approx(expected.spread, rel=1e-4)


def test_the_two_stages_find_the_exact_nearest_chunks_and_spread(manual):
    chunks, questions = manual
    ids = np.arange(1, len(chunks) + 1)
    index = two_stage()
    index.load(ids, 1 + (ids - 1) // CHUNKS_PER_DOCUMENT, chunks)
    for query in questions:
        found, scores, spread = index.nearest_in_spread(query, NEAREST)
        expected, expected_spread = exact_nearest(chunks, ids, query, NEAREST)
        assert found.tolist() == expected.tolist()
        np.testing.assert_allclose(scores, chunks[found - 1] @ query, rtol=1e-6)
        assert_same_spread(spread, expected_spread)


def test_a_scope_and_excluded_documents_are_searched_in_two_stages_exactly(manual):
    chunks, questions = manual
    ids = np.arange(1, len(chunks) + 1)
    documents = 1 + (ids - 1) // CHUNKS_PER_DOCUMENT
    index = two_stage()
    index.load(ids, documents, chunks)
    scopes = [
        (None, [3]),  # every document but another chat's attachment
        (list(range(1, 11)), [2]),  # ten documents chosen, one of them excluded
        ([4, 7], []),  # a few documents: fewer rows searched than left out
    ]
    for allowed, excluded in scopes:
        searched = np.isin(documents, allowed if allowed is not None else documents)
        searched &= ~np.isin(documents, excluded)
        for query in questions[:10]:
            found, _, spread = index.nearest_in_spread(query, NEAREST, allowed, excluded)
            expected, expected_spread = exact_nearest(
                chunks[searched], ids[searched], query, NEAREST
            )
            assert found.tolist() == expected.tolist()
            assert_same_spread(spread, expected_spread)


def test_the_index_stays_current_as_documents_are_indexed_again_and_removed(manual):
    chunks, questions = manual
    rng = np.random.default_rng(7)
    # The truth the index must follow: each document's chunk ids and vectors.
    truth: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    next_id = iter(range(1, 100_000))

    def index_document(document: int, rows: np.ndarray) -> None:
        chunk_ids = np.array([next(next_id) for _ in rows])
        truth[document] = (chunk_ids, chunks[rows])
        index.replace_document(document, chunk_ids.tolist(), chunks[rows])

    def check() -> None:
        ids = np.concatenate([chunk_ids for chunk_ids, _ in truth.values()])
        vectors = np.concatenate([rows for _, rows in truth.values()])
        assert len(index) == len(ids)
        for query in questions[:8]:
            found, _, spread = index.nearest_in_spread(query, NEAREST)
            expected, expected_spread = exact_nearest(vectors, ids, query, NEAREST)
            assert found.tolist() == expected.tolist()
            assert_same_spread(spread, expected_spread)
            for document, (chunk_ids, _) in truth.items():
                scoped, _ = index.nearest(query, NEAREST, [document])
                assert set(scoped.tolist()) <= set(chunk_ids.tolist())

    index = two_stage(shortlist=200)
    index_document(1, np.arange(0, 300))
    check()
    for document in range(2, 9):  # the collection grows eightfold: codes recentred
        index_document(document, np.arange(300 * (document - 1), 300 * document))
        check()
    index_document(3, rng.choice(np.arange(2400, 3000), 400, replace=False))  # indexed again
    check()
    removed_ids = truth.pop(5)[0]
    index.remove_document(5)
    check()
    for query in questions[:8]:
        found, _ = index.nearest(query, 2000)
        assert not set(found.tolist()) & set(removed_ids.tolist())
    for document in (1, 2, 4, 6):  # most of it removed: codes recentred again
        truth.pop(document)
        index.remove_document(document)
        check()


def test_a_documents_rows_loaded_apart_are_found_together(manual):
    chunks, questions = manual
    ids = np.arange(1, 601)
    documents = np.where(ids % 2 == 0, 20, 10)  # as chunks of a re-indexed document come
    index = two_stage(shortlist=50)
    index.load(ids, documents, chunks[:600])
    for query in questions[:5]:
        found, _ = index.nearest(query, 600, [20])
        assert sorted(found.tolist()) == ids[documents == 20].tolist()
        found, _ = index.nearest(query, NEAREST, [10])
        expected, _ = exact_nearest(chunks[:600][documents == 10], ids[documents == 10], query, 10)
        assert found.tolist() == expected.tolist()


def test_the_codes_shortlist_the_rows_with_the_best_estimates(manual):
    chunks, questions = manual
    codes = SignCodes(DIMENSIONS)
    codes.rebuild(chunks)
    for query in questions[:10]:
        estimates = np.floor(codes.estimates(query))
        chosen = codes.best(query, 100)
        assert len(chosen) == 100 and np.all(np.diff(chosen) > 0)
        others = np.setdiff1d(np.arange(len(chunks)), chosen)
        assert estimates[chosen].min() >= estimates[others].max()
        within = np.arange(0, len(chunks), 3)
        chosen = codes.best(query, 100, within)
        assert set(chosen.tolist()) <= set(within.tolist()) and len(chosen) == 100
        assert estimates[chosen].min() >= estimates[np.setdiff1d(within, chosen)].max()


def test_the_services_two_stage_index_follows_documents_indexed_again_and_removed(tmp_path):
    """Through the documents service (its indexer hands the vectors over in batches):
    after every change the index's nearest chunks are the exact nearest among the
    vectors stored in the database, and a removed document's chunks are gone."""
    pages, facts = manual_pages(24, seed=11)
    paths = []
    for number in range(3):
        path = tmp_path / f"manual-{number}.txt"
        text = "\n\n".join(" ".join(lines) for lines in pages[number * 8 : (number + 1) * 8])
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    queries = np.asarray(
        WordLlamaEmbedder().embed_sync([f.question for f in facts[:6]]), np.float32
    )

    async def exact_from_database(store, service) -> list[tuple[list[int], dict]]:
        """Per query: the exact nearest ids, and every stored chunk's cosine."""
        ids, _, vectors = await store.run(chunk_sql.chunk_vectors, service.embedder.name)
        return [
            (
                exact_nearest(vectors, ids, query, NEAREST)[0].tolist(),
                dict(zip(ids.tolist(), (vectors @ query).tolist(), strict=True)),
            )
            for query in queries
        ]

    def indexed(service) -> list[list[int]]:
        return [service.vectors.nearest(query, NEAREST)[0].tolist() for query in queries]

    async def scenario():
        store = await Store.open(tmp_path / "db.sqlite3")
        try:
            service = DocumentService(store, WordLlamaEmbedder(), EventBus())
            await service.load()
            service.vectors.exact_up_to, service.vectors.shortlist = 0, 40
            steps = []
            report = await service.add(paths)
            await service.index_now(report.job_ids)
            steps.append((indexed(service), await exact_from_database(store, service)))
            paths[1].write_text(" ".join(pages[20]) + "\n\n" + " ".join(pages[21]), "utf-8")
            await service.index_now((await service.reindex(2)).job_ids)
            steps.append((indexed(service), await exact_from_database(store, service)))
            removed = [p.chunk_id for p in await service.passages(1)]
            await service.remove(1)
            steps.append((indexed(service), await exact_from_database(store, service)))
            stored = len((await store.run(chunk_sql.chunk_vectors, service.embedder.name))[0])
            return steps, removed, len(service.vectors), stored
        finally:
            await store.close()

    steps, removed, count, stored = run(scenario())
    for found, exact in steps:
        for ids, (expected, cosine) in zip(found, exact, strict=True):
            # The same chunks in the same order, but for chunks whose cosines differ
            # only in the last float bits.
            assert [cosine[i] for i in ids] == pytest.approx(
                [cosine[i] for i in expected], abs=1e-6
            )
    assert not set(removed) & {i for ids in steps[-1][0] for i in ids}
    assert count == stored > 40  # more chunks than the shortlist: two stages ran
