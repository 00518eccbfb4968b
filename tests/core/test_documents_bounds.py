"""Files that once crash-looped the app (issue 20, item 1): every chunk is bounded
whatever the whitespace, and the embedder never sees an unbounded text."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.documents.chunking import (
    MAX_CHUNK_CHARACTERS,
    MAX_CHUNK_TOKENS,
    MAX_HEADING_CHARACTERS,
    chunk_sections,
)
from acai_desktop.core.documents.model import DocumentStatus
from acai_desktop.core.documents.readers import Section
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.models.embeddings.base import MAX_EMBED_CHARACTERS, clip_for_embedding
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from tests.core.test_documents_service import documents_at
from tests.support.aio import run

MB = 1024 * 1024


def assert_bounded(chunks) -> None:
    assert chunks
    for chunk in chunks:
        assert len(chunk.content) <= MAX_CHUNK_CHARACTERS, len(chunk.content)
        assert chunk.token_count == estimate_tokens(chunk.content) <= MAX_CHUNK_TOKENS
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def minified_json(records: int) -> str:
    rows = [{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "ok": True} for i in range(records)]
    return json.dumps(rows, separators=(",", ":"))


def test_a_line_without_whitespace_is_cut_into_bounded_chunks_losing_nothing():
    text = "A" * 200_000
    chunks = chunk_sections([Section(text)])
    assert_bounded(chunks)
    assert len(chunks) >= len(text) // MAX_CHUNK_CHARACTERS
    assert "".join(c.content for c in chunks) == text  # no overlap inside a run: exact


def test_minified_json_is_cut_after_punctuation_within_the_bounds():
    text = minified_json(3000)
    chunks = chunk_sections([Section(text)])
    assert_bounded(chunks)
    assert "".join(c.content for c in chunks) == text
    # Cut where a reader would: after a comma or a closing bracket, not mid-name.
    assert all(c.content[-1] in ",}]:" for c in chunks[:-1])


@pytest.mark.parametrize(
    "text",
    [
        "字" * 50_000,  # no whitespace, a token a character
        "{" * 50_000,  # punctuation only: a token a character
        ("word " * 300 + "B" * 30_000 + " ") * 3,  # a long run inside prose
        "x\n" * 60_000,  # many one-word lines, no paragraph break
    ],
    ids=["cjk", "punctuation", "run-in-prose", "short-lines"],
)
def test_every_kind_of_text_gives_bounded_chunks(text):
    assert_bounded(chunk_sections([Section(text)]))


def test_a_huge_heading_is_not_repeated_on_every_chunk():
    chunks = chunk_sections([Section("body " * 2000, heading="H" * 1_000_000)])
    assert_bounded(chunks)
    assert all(len(c.heading) <= MAX_HEADING_CHARACTERS for c in chunks)


def test_the_embedder_never_sees_an_unbounded_text():
    assert clip_for_embedding(["short", "B" * (MAX_EMBED_CHARACTERS + 5)]) == [
        "short",
        "B" * MAX_EMBED_CHARACTERS,
    ]
    embedder = WordLlamaEmbedder()
    embedder.embed_sync(["warm up"])
    tracemalloc.start()
    try:
        # A 1 MB text beside short ones: WordLlama pads a batch to its longest text, so
        # unguarded this took hundreds of megabytes.
        vectors = embedder.embed_sync(["Q" * MB, *["a short passage"] * 31])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert vectors.shape == (32, embedder.dimensions)
    assert peak < 64 * MB, f"{peak / MB:.0f} MB"


def test_a_one_line_file_is_indexed_in_bounded_chunks_a_batch_at_a_time(tmp_path, monkeypatch):
    from acai_desktop.core.documents import indexing

    monkeypatch.setattr(indexing, "EMBED_BATCH", 64)
    events = EventBus()
    embedded: list[int] = []  # chunks embedded and stored so far, after each batch
    events.subscribe(
        ev.IndexingProgress,
        lambda e: e.stage == "embedding" and e.done not in embedded and embedded.append(e.done),
    )
    path = tmp_path / "data.json"
    path.write_text(minified_json(6000), encoding="utf-8")

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False, events=events) as (
            service,
            _,
        ):
            (document,) = await service.index_now((await service.add([path])).job_ids)
            return document, await service.passages(document.id)

    document, passages = run(scenario())
    assert document.status == DocumentStatus.READY
    assert document.chunk_count == len(passages) == embedded[-1] > 64
    assert embedded == [*range(64, embedded[-1], 64), embedded[-1]]
    assert max(len(p.content) for p in passages) <= MAX_CHUNK_CHARACTERS


def test_html_of_one_huge_paragraph_is_read_in_a_few_times_its_size():
    from acai_desktop.core.documents.html_text import html_to_text

    words = "pump valve " * 500_000  # 5.5 MB, a million words, one paragraph
    html = f"<html><body><p>{words}</p>" + "<p>x</p>" * 200_000 + "</body></html>"
    tracemalloc.start()
    try:
        _, text = html_to_text(html)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text.startswith("pump valve pump") and text.endswith("x\n\nx")
    # Lists of the paragraph's words and of every paragraph took thirteen times it.
    assert peak < 5 * len(html), f"{peak / MB:.0f} MB for {len(html) / MB:.0f} MB"
