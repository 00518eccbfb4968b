"""Sections to chunks, by structure first and around a token budget.

A chunk never spans two sections, so it has one page (PDF) and one heading (Markdown,
HTML). Inside a section, paragraphs are packed into chunks of about
``budget_tokens``; a paragraph longer than that is cut between words. Each chunk after
the first of its section starts with the last ``overlap_tokens`` or so of the chunk
before it, so a sentence cut at a boundary is still whole in one of them.
Tokens are counted with the estimate every budget in the program uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acai_desktop.core.documents.readers import Section
from acai_desktop.core.memory.tokens import estimate_tokens

#: About this many tokens per chunk: a passage that answers a question, and several
#: of them fit the evidence's share of a prompt.
CHUNK_TOKENS = 220
OVERLAP_TOKENS = 40

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    ordinal: int  # 0-based position in the document
    content: str
    token_count: int
    page: int | None = None
    heading: str = ""


def chunk_sections(
    sections: list[Section],
    budget_tokens: int = CHUNK_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Chunk]:
    if overlap_tokens >= budget_tokens:
        raise ValueError("the overlap must be smaller than the chunk budget")
    chunks: list[Chunk] = []
    for section in sections:
        for text in _section_pieces(section.text, budget_tokens, overlap_tokens):
            chunks.append(
                Chunk(len(chunks), text, estimate_tokens(text), section.page, section.heading)
            )
    return chunks


def _section_pieces(text: str, budget: int, overlap: int) -> list[str]:
    """The section's text packed into pieces of about ``budget`` tokens."""
    units: list[tuple[str, int]] = []  # paragraphs, long ones already cut
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        cost = estimate_tokens(paragraph)
        if cost <= budget:
            units.append((paragraph, cost))
        else:
            units.extend(_cut_words(paragraph, budget - overlap))
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit, cost in units:
        if current and used + cost > budget:
            pieces.append("\n\n".join(current))
            tail = _tail(pieces[-1], overlap)
            current, used = ([tail], estimate_tokens(tail)) if tail else ([], 0)
        current.append(unit)
        used += cost
    if current:
        piece = "\n\n".join(current)
        # A last piece that is only the overlap of the one before adds nothing.
        if not pieces or not pieces[-1].endswith(piece):
            pieces.append(piece)
    return pieces


def _cut_words(paragraph: str, budget: int) -> list[tuple[str, int]]:
    """A paragraph too long for one chunk, cut between words into parts of at most
    about ``budget`` tokens."""
    parts, words, used = [], [], 0.0
    for word in paragraph.split():
        cost = _word_cost(word)
        if words and used + cost > budget:
            parts.append(" ".join(words))
            words, used = [], 0.0
        words.append(word)
        used += cost
    if words:
        parts.append(" ".join(words))
    return [(part, estimate_tokens(part)) for part in parts]


def _word_cost(word: str) -> float:
    """A word's share of the estimate of the text it is joined into: its own estimate,
    or its characters and the space after it by the characters rule, whichever is
    more. The sum over words bounds the joined text's estimate from above."""
    return max(estimate_tokens(word), (len(word) + 1) / 4)


def _tail(text: str, overlap: int) -> str:
    """The last words of ``text`` worth about ``overlap`` tokens."""
    if overlap <= 0:
        return ""
    words = text.split()
    kept, used = [], 0.0
    for word in reversed(words):
        cost = _word_cost(word)
        if used + cost > overlap:
            break
        kept.append(word)
        used += cost
    if len(kept) == len(words):
        return ""  # the whole piece: repeating it all is not an overlap
    return " ".join(reversed(kept))
