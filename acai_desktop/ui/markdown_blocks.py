"""Cut a Markdown answer into top-level blocks: prose (Markdown) and fenced code.

Streaming needs to know which part of a growing answer can no longer change: a block
followed by a boundary is *stable*, and only what comes after the last boundary (the
*tail*) is parsed again when more text arrives. Boundaries are conservative: the end
of a closed code fence, the start of a code fence, and a blank line followed by a line
that begins a new top-level block (not indented, not a list item, so a loose list or
a list item's second paragraph stays in one block). Only complete lines (ending in a
newline) are judged; the last, unfinished line always belongs to the tail.

Rendering cost is bounded by size: a block that grows past a limit (a table of more
than :data:`TABLE_MAX_CELLS` cells, a code block of more than :data:`CODE_MAX_CHARS`,
a run of prose without a blank line longer than :data:`PROSE_MAX_CHARS`) becomes a
*plain run*: its text as it is, in ``plain`` blocks, line by line. Qt's table layout
alone costs about 0.1 ms a cell and Pygments about 13 ms per KB of code, so a
500 x 30 table or a 1 MB code block would freeze the window; as plain text each new
line costs only itself. A plain run ends where its block would (a blank line; the
closing fence of code), and :class:`Split` carries it on to the next call.

No Qt here: this is plain text processing, tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An opening or closing fence: up to 3 spaces, then ``` or ~~~ (3 or more), then an
# info string whose first word is the language.
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
# A table's delimiter row: | --- | :---: | (the pipes at the ends are optional).
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
# First characters of a line that could still become a list item or a fence.
_UNDECIDED_STARTS = frozenset(" \t-*+`~")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


#: Over these sizes a block is shown as plain text (see the module's docstring). At
#: about 0.13 ms a cell (parse and layout), 300 cells cost some 40 ms.
TABLE_MAX_CELLS = 300
#: Code longer than this is not coloured (Pygments: ~13 ms per KB, re-run on each
#: streamed update of the block).
CODE_MAX_CHARS = 3_000
#: One run of prose (no blank line in it) longer than this is not parsed as Markdown.
PROSE_MAX_CHARS = 16_000
TABLE, CODE, PROSE = "table", "code", "prose"


@dataclass(frozen=True)
class Block:
    kind: str  # "markdown", "code" or "plain"
    text: str  # Markdown source, the code (fences and fence indent removed), or plain text
    language: str = ""
    closed: bool = True  # code: its closing fence has arrived
    #: plain: what the run holds (TABLE, CODE or PROSE) and whether this block starts it
    #: (a later block of the run continues the text); ``offset`` is where the table's
    #: header or the code's opening fence is in the answer.
    run: str = ""
    starts_run: bool = False
    offset: int = -1


@dataclass(frozen=True)
class PlainRun:
    """An over-large block shown as plain text, going on where scanning stopped."""

    kind: str  # TABLE, CODE or PROSE
    fence: str = ""  # code: the fence that closes it


@dataclass(frozen=True)
class Split:
    stable: list[Block]
    #: Offset in the text where the tail (the block still growing) begins.
    tail_start: int
    #: The plain run the tail belongs to (None: the tail is an ordinary block).
    plain: PlainRun | None = None


@dataclass
class _Table:
    header_start: int
    columns: int
    rows: int = 0


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


def _columns(delimiter_row: str) -> int:
    return len([cell for cell in delimiter_row.strip().strip("|").split("|")])


def _ends_run(line: str, plain: PlainRun) -> bool:
    return _closes(line, plain.fence) if plain.kind == CODE else not line.strip()


def split_stable(text: str, start: int = 0, plain: PlainRun | None = None) -> Split:
    """The stable blocks of ``text[start:]`` and where its tail begins.

    ``start`` and ``plain`` must be a ``tail_start`` and ``plain`` returned earlier for a
    prefix of ``text`` (or 0 and None): scanning resumes there, so streaming costs the
    tail, not the answer.
    """
    stable: list[Block] = []
    block_start = start
    fence: tuple[str, int, str, int, int] | None = None  # marker, indent, language, code start, at
    previous_blank = False
    previous: tuple[int, str] | None = None  # the line before: (start, text)
    table: _Table | None = None

    def go_plain(kind: str, text_start: int, end: int, offset: int, closing: str = "") -> None:
        nonlocal plain, block_start, table
        language = fence[2] if fence is not None else ""
        stable.append(Block("plain", text[text_start:end], language, False, kind, True, offset))
        plain, block_start, table = PlainRun(kind, closing), end, None

    for line_start, line_end, line in _lines(text, start):
        if plain is not None:
            if _ends_run(line, plain):
                if line_start > block_start:
                    stable.append(Block("plain", text[block_start:line_start], run=plain.kind))
                previous_blank = plain.kind != CODE
                block_start, plain, previous = line_end, None, None
            continue
        if fence is not None:
            marker, indent, language, code_start, at = fence
            if _closes(line, marker):
                body = text[code_start:line_start].removesuffix("\n")
                code = _code_text(body.split("\n"), indent) if body else ""
                stable.append(Block("code", code, language, closed=True))
                block_start, fence, previous_blank = line_end, None, False
            elif line_end - code_start > CODE_MAX_CHARS:
                go_plain(CODE, code_start, line_end, at, marker)
                fence = None
            continue
        match = _FENCE.match(line)
        if match:
            prose = text[block_start:line_start]
            if prose.strip():
                stable.append(Block("markdown", prose))
            fence = (match.group(2), len(match.group(1)), match.group(3), line_end, line_start)
            block_start, table, previous = line_start, None, None
            continue
        if previous_blank and _starts_top_level_block(line):
            prose = text[block_start:line_start]
            if prose.strip():
                stable.append(Block("markdown", prose))
            block_start, table = line_start, None
        if table is not None:
            if line.strip():
                table.rows += 1
            else:
                table = None
        elif previous is not None and "|" in previous[1] and _DELIMITER_ROW.match(line):
            table = _Table(previous[0], _columns(line))
        if table is not None and (table.rows + 1) * table.columns > TABLE_MAX_CELLS:
            go_plain(TABLE, block_start, line_end, table.header_start)
        elif line_end - block_start > PROSE_MAX_CHARS:
            go_plain(PROSE, block_start, line_end, block_start)
        else:
            previous_blank = not line.strip()
            previous = (line_start, line)
    if plain is not None:
        # The complete lines of a plain run are stable; its unfinished line is the tail.
        end = text.rfind("\n") + 1
        if end > block_start:
            stable.append(Block("plain", text[block_start:end], run=plain.kind))
            block_start = end
        return Split(stable, block_start, plain)
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


def tail_block(tail: str, plain: PlainRun | None = None) -> Block | None:
    """The one block the tail of :func:`split_stable` holds (None when it is blank):
    the unfinished line of a plain run, an open code fence (its closing fence may be
    the unfinished last line) or prose."""
    if plain is not None:
        if not tail or _ends_run(tail, plain):
            return None
        return Block("plain", tail, run=plain.kind)
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
    last = tail_block(text[split.tail_start :], split.plain)
    return [*split.stable, *([last] if last else [])]


# -- what the links of a plain run need ----------------------------------------------

_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner.removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def table_at(text: str, offset: int) -> list[list[str]]:
    """The cells of the table whose header line starts at ``offset``: the header first,
    then each row (the delimiter row left out), up to a blank line or the end."""
    rows: list[list[str]] = []
    for number, (_start, _end, line) in enumerate(_lines(text + "\n", offset)):
        if not line.strip():
            break
        if number != 1:  # the delimiter row
            rows.append(_cells(line))
    return rows


def code_at(text: str, offset: int) -> str:
    """The code of the fenced block whose opening fence starts at ``offset`` (up to its
    closing fence, or the end of ``text`` while it streams)."""
    first_end = text.find("\n", offset)
    match = _FENCE.match(text[offset : first_end if first_end >= 0 else len(text)])
    if match is None or first_end < 0:
        return ""
    marker, indent = match.group(2), len(match.group(1))
    lines = []
    for _start, _end, line in _lines(text + "\n", first_end + 1):
        if _closes(line, marker):
            break
        lines.append(line)
    return _code_text(lines, indent)
