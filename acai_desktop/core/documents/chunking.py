"""Sections to chunks, by structure first and around a token budget.

A chunk never spans two sections, so it has one page (PDF) and one heading (Markdown,
HTML). Inside a section, paragraphs are packed into chunks of about
``budget_tokens``; a paragraph longer than that is cut between words. Each chunk after
the first of its section starts with the last ``overlap_tokens`` or so of the chunk
before it, so a sentence cut at a boundary is still whole in one of them.
Tokens are counted with the estimate every budget in the program uses.

Every chunk is bounded whatever the whitespace: a "word" longer than a chunk (a file
with no whitespace, minified JSON, a 4 MB line) is cut into runs, after punctuation
where it can be. No chunk's estimate passes ``budget_tokens + overlap_tokens``, and
since the estimate counts at least a token per four characters, no chunk passes four
times that in characters either. Chunks are produced lazily and the section's text is
walked by position, never split into lists of its paragraphs or words, so chunking a
50 MB file costs its chunks, not several copies of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from acai_desktop.core.documents.readers import Section
from acai_desktop.core.memory.tokens import estimate_tokens

#: About this many tokens per chunk: a passage that answers a question, and several
#: of them fit the evidence's share of a prompt.
CHUNK_TOKENS = 220
OVERLAP_TOKENS = 40
#: No chunk passes these, whatever its text (see the module's docstring).
MAX_CHUNK_TOKENS = CHUNK_TOKENS + OVERLAP_TOKENS
MAX_CHUNK_CHARACTERS = 4 * MAX_CHUNK_TOKENS
#: A heading is a title; a 4 MB "# ..." line must not be repeated on every chunk.
MAX_HEADING_CHARACTERS = 200

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_NON_SPACE = re.compile(r"\S")
_WORD = re.compile(r"\S+")
#: Where a long run without whitespace is best cut: after these.
_RUN_BREAK = re.compile(r"[,;:.!?)\]}>|/\\-]")


@dataclass(frozen=True)
class Chunk:
    ordinal: int  # 0-based position in the document
    content: str
    token_count: int
    page: int | None = None
    heading: str = ""


def chunk_sections(
    sections: Iterable[Section],
    budget_tokens: int = CHUNK_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Chunk]:
    return list(iter_chunks(sections, budget_tokens, overlap_tokens))


def iter_chunks(
    sections: Iterable[Section],
    budget_tokens: int = CHUNK_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> Iterator[Chunk]:
    """The chunks of ``sections`` in order, one at a time."""
    if overlap_tokens >= budget_tokens:
        raise ValueError("the overlap must be smaller than the chunk budget")
    ceiling = budget_tokens + overlap_tokens
    ordinal = 0
    for section in sections:
        heading = _bounded_heading(section.heading)
        for piece in _section_pieces(section.text, budget_tokens, overlap_tokens):
            # A safety net under the packing's arithmetic: nothing over the ceiling
            # leaves here, whatever the text.
            for text, cost in _bounded(piece, ceiling):
                yield Chunk(ordinal, text, cost, section.page, heading)
                ordinal += 1


def _bounded_heading(heading: str) -> str:
    if len(heading) <= MAX_HEADING_CHARACTERS:
        return heading
    return heading[: MAX_HEADING_CHARACTERS - 1].rstrip() + "…"


def _bounded(piece: str, ceiling: int) -> Iterator[tuple[str, int]]:
    cost = estimate_tokens(piece) if len(piece) <= 4 * ceiling + 3 else ceiling + 1
    if cost <= ceiling:
        yield piece, cost
    else:
        yield from _cut_words(piece, 0, len(piece), ceiling)


def _section_pieces(text: str, budget: int, overlap: int) -> Iterator[str]:
    """The section's text packed into pieces of about ``budget`` tokens."""
    current: list[str] = []
    used = 0
    for unit, cost in _units(text, budget, overlap):
        if current and used + cost > budget:
            piece = "\n\n".join(current)
            yield piece
            tail = _tail(piece, overlap)
            current, used = ([tail], estimate_tokens(tail)) if tail else ([], 0)
        current.append(unit)
        used += cost
    if current:  # never only the overlap: a unit follows every flush
        yield "\n\n".join(current)


def _units(text: str, budget: int, overlap: int) -> Iterator[tuple[str, int]]:
    """The section's paragraphs with their cost, the long ones already cut."""
    for start, end in _paragraph_spans(text):
        # The estimate is at least a token per four characters: a longer paragraph
        # is over the budget without counting (counting 50 MB would copy it).
        if end - start <= 4 * budget + 3:
            paragraph = text[start:end]
            cost = estimate_tokens(paragraph)
            if cost <= budget:
                yield paragraph, cost
                continue
        yield from _cut_words(text, start, end, budget - overlap)


def _paragraph_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each paragraph, stripped, empty ones skipped."""
    start = 0
    for found in _PARAGRAPH_BREAK.finditer(text):
        yield from _stripped(text, start, found.start())
        start = found.end()
    yield from _stripped(text, start, len(text))


def _stripped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    first = _NON_SPACE.search(text, start, end)
    if first is None:
        return
    while text[end - 1].isspace():
        end -= 1
    yield first.start(), end


def _cut_words(text: str, start: int, end: int, budget: int) -> Iterator[tuple[str, int]]:
    """A paragraph (``text[start:end]``) too long for one chunk, cut between words into
    parts of at most about ``budget`` tokens; a word longer than that is cut itself."""
    words: list[str] = []
    used = 0.0
    for found in _WORD.finditer(text, start, end):
        word_start, word_end = found.span()
        word = text[word_start:word_end] if word_end - word_start <= 4 * budget else ""
        cost = _word_cost(word) if word else budget + 1
        if cost > budget:
            if words:
                yield _part(words)
                words, used = [], 0.0
            yield from _cut_run(text, word_start, word_end, budget)
            continue
        if words and used + cost > budget:
            yield _part(words)
            words, used = [], 0.0
        words.append(word)
        used += cost
    if words:
        yield _part(words)


def _part(words: list[str]) -> tuple[str, int]:
    part = " ".join(words)
    return part, estimate_tokens(part)


def _cut_run(text: str, start: int, end: int, budget: int) -> Iterator[tuple[str, int]]:
    """``text[start:end]``, a run with no place to cut between words, cut into parts of
    at most ``budget`` tokens, each ending after punctuation when one is in its second
    half. The estimate never passes the length, so ``budget`` characters always fit."""
    position = start
    while position < end:
        size = min(end - position, 4 * budget)
        part = text[position : position + size]
        cost = estimate_tokens(part)
        while cost > budget:
            size = max(budget, size * budget // cost)
            part = text[position : position + size]
            cost = estimate_tokens(part)
        if position + size < end:
            breaks = [m.end() for m in _RUN_BREAK.finditer(part, size // 2)]
            if breaks:
                part = part[: breaks[-1]]
                cost = estimate_tokens(part)
        yield part, cost
        position += len(part)


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
