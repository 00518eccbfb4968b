"""Cut a Markdown answer into top-level blocks: prose (Markdown) and fenced code.

Streaming needs to know which part of a growing answer can no longer change: a block
followed by a boundary is *stable*, and only what comes after the last boundary (the
*tail*) is parsed again when more text arrives. Boundaries are conservative: the end
of a closed code fence, the start of a code fence, and a blank line followed by a line
that begins a new top-level block (not indented, not a list item, so a loose list or
a list item's second paragraph stays in one block). Only complete lines (ending in a
newline) are judged; the last, unfinished line always belongs to the tail.

No Qt here: this is plain text processing, tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An opening or closing fence: up to 3 spaces, then ``` or ~~~ (3 or more), then an
# info string whose first word is the language.
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
# First characters of a line that could still become a list item or a fence.
_UNDECIDED_STARTS = frozenset(" \t-*+`~")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


@dataclass(frozen=True)
class Block:
    kind: str  # "markdown" or "code"
    text: str  # Markdown source, or the code itself (fences and fence indent removed)
    language: str = ""
    closed: bool = True  # code: its closing fence has arrived


@dataclass(frozen=True)
class Split:
    stable: list[Block]
    #: Offset in the text where the tail (the block still growing) begins.
    tail_start: int


def _lines(text: str, start: int):
    """(start, end, line without its newline) of every complete line from ``start``."""
    position = start
    while True:
        newline = text.find("\n", position)
        if newline < 0:
            return
        yield position, newline + 1, text[position:newline]
        position = newline + 1


def _starts_top_level_block(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and not _LIST_ITEM.match(line)


def _closes(line: str, fence: str) -> bool:
    match = _FENCE.match(line)
    return bool(
        match
        and match.group(2)[0] == fence[0]
        and len(match.group(2)) >= len(fence)
        and not match.group(3)
        and not line[match.end(2) :].strip()
    )


def _code_text(lines: list[str], indent: int) -> str:
    # Like CommonMark: remove up to the fence's own indentation from each line.
    out = []
    for line in lines:
        spaces = len(line) - len(line.lstrip(" "))
        out.append(line[min(spaces, indent) :])
    return "\n".join(out)


def split_stable(text: str, start: int = 0) -> Split:
    """The stable blocks of ``text[start:]`` and where its tail begins.

    ``start`` must be a ``tail_start`` returned earlier for a prefix of ``text``
    (or 0): scanning resumes there, so streaming costs the tail, not the answer.
    """
    stable: list[Block] = []
    block_start = start
    fence: tuple[str, int, str, int] | None = None  # (marker, indent, language, code start)
    previous_blank = False
    for line_start, line_end, line in _lines(text, start):
        if fence is not None:
            marker, indent, language, code_start = fence
            if _closes(line, marker):
                body = text[code_start:line_start].removesuffix("\n")
                code = _code_text(body.split("\n"), indent) if body else ""
                stable.append(Block("code", code, language, closed=True))
                block_start, fence, previous_blank = line_end, None, False
            continue
        match = _FENCE.match(line)
        if match:
            prose = text[block_start:line_start]
            if prose.strip():
                stable.append(Block("markdown", prose))
            fence = (match.group(2), len(match.group(1)), match.group(3), line_end)
            block_start = line_start
            continue
        if previous_blank and _starts_top_level_block(line):
            prose = text[block_start:line_start]
            if prose.strip():
                stable.append(Block("markdown", prose))
            block_start = line_start
        previous_blank = not line.strip()
    # The unfinished last line can already tell that a new block starts: a word after a
    # blank line is a new paragraph (a marker, a digit or a fence must wait for more).
    partial = text[text.rfind("\n") + 1 :] if "\n" in text[start:] else text[start:]
    if (
        fence is None
        and previous_blank
        and partial
        and partial[0] not in _UNDECIDED_STARTS
        and not partial[0].isdigit()
    ):
        prose = text[block_start : len(text) - len(partial)]
        if prose.strip():
            stable.append(Block("markdown", prose))
            block_start = len(text) - len(partial)
    return Split(stable, block_start)


def tail_block(tail: str) -> Block | None:
    """The one block the tail of :func:`split_stable` holds (None when it is blank):
    an open code fence (its closing fence may be the unfinished last line) or prose."""
    if not tail.strip():
        return None
    first, _, rest = tail.partition("\n")
    match = _FENCE.match(first)
    if not match or not _:
        return Block("markdown", tail)
    marker, indent, language = match.group(2), len(match.group(1)), match.group(3)
    lines = rest.split("\n")
    closed = bool(lines) and _closes(lines[-1], marker)
    if closed:
        lines = lines[:-1]
    elif lines and lines[-1] == "":
        lines = lines[:-1]  # a newline after the last code line, the next not yet here
    return Block("code", _code_text(lines, indent), language, closed=closed)


def split_blocks(text: str) -> list[Block]:
    """Every block of a finished ``text``: the stable ones and its tail."""
    split = split_stable(text)
    last = tail_block(text[split.tail_start :])
    return [*split.stable, *([last] if last else [])]
