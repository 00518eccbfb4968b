"""Chunking by structure: sections kept apart, a token budget, overlap."""

from __future__ import annotations

import itertools

import pytest

from acai_desktop.core.documents.chunking import chunk_sections
from acai_desktop.core.documents.readers import Section
from acai_desktop.core.memory.tokens import estimate_tokens


def test_chunks_keep_the_page_and_heading_of_their_section():
    chunks = chunk_sections(
        [Section("Page one text.", page=1), Section("Page two text.", page=2, heading="Intro")]
    )
    assert [(c.ordinal, c.page, c.heading, c.content) for c in chunks] == [
        (0, 1, "", "Page one text."),
        (1, 2, "Intro", "Page two text."),
    ]


def test_small_paragraphs_are_packed_together_within_the_budget():
    paragraphs = [f"Paragraph {i} says something short." for i in range(30)]
    chunks = chunk_sections([Section("\n\n".join(paragraphs))], budget_tokens=60, overlap_tokens=0)
    assert len(chunks) > 1
    assert all(c.token_count <= 60 for c in chunks)
    # Nothing lost, nothing cut mid-paragraph: every paragraph is whole in some chunk.
    for paragraph in paragraphs:
        assert any(paragraph in c.content for c in chunks)


def test_a_long_paragraph_is_cut_between_words_with_overlap():
    words = [f"w{i}" for i in range(600)]
    chunks = chunk_sections([Section(" ".join(words))], budget_tokens=100, overlap_tokens=20)
    assert len(chunks) >= 6
    assert all(c.token_count <= 110 for c in chunks)
    joined = " ".join(c.content for c in chunks).split()
    assert set(joined) == set(words)  # every word kept
    for before, after in itertools.pairwise(chunks):
        # The next chunk starts with the last words of the one before.
        assert after.content.split()[0] in before.content.split()[-20:]
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_token_counts_are_the_programs_estimate():
    (chunk,) = chunk_sections([Section("Quick brown fox jumps.")])
    assert chunk.token_count == estimate_tokens("Quick brown fox jumps.")


def test_overlap_must_be_smaller_than_the_budget():
    with pytest.raises(ValueError):
        chunk_sections([Section("x")], budget_tokens=10, overlap_tokens=10)
