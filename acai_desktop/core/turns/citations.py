"""Inline citations: the numbers a turn gives its sources, and the ``[n]`` markers an
answer writes with them.

A turn's prompt numbers what the answer may cite (docs/architecture.md, citations):
the document passages first, ``[1]`` to ``[P]`` in their order in the prompt, then the
messages recalled from past conversations, ``[P+1]`` on, in theirs. Memories (facts,
notes, summaries) get no number: they are what the user told the assistant, not a
text to check, and *Sources* lists them.

The numbers are not stored: they are derived again from the answer's provenance
(``answer_evidence`` keeps each passage's rank, ``answer_sources`` each item's rank
among everything the prompt placed). Deleting a chat deletes the ``answer_sources``
rows of its messages recalled elsewhere, so a recalled message's number is counted from
its own rank, less the memories placed before it (a memory's row goes only with its
answer), never from its place among the rows left: ``[4]`` stays ``[4]`` when the
message that was ``[3]`` is deleted. :func:`number_sources` is that one rule, used by
the prompt's builder and by everything that reads an answer's citations back.

Markers: the answer's text is the model's, untouched in the store. What shows it
(:func:`place_citations`) takes each run of markers (``[1]``, ``[1][2]``, ``[1, 2]``)
out of its paragraph, keeps the numbers that match a source of the turn, in order of
first use and without repeats, and hands them to the caller to put at the
paragraph's end (the chat's chips, or ``[1]`` again for *Copy*). A number with no
source (``[9]`` of three) is dropped with its brackets. Code (fenced or inline) is
left as written, and a table's row keeps its markers in its cells. An answer whose
turn had no numbered source is shown as written: its brackets were not citations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.records.conversations import AnswerSource, RecalledMessage

#: How much of a source's text a citation's label quotes.
LABEL_TEXT_CHARS = 200


@dataclass(frozen=True)
class Citation:
    """One numbered source of an answer: a document passage (``evidence``) or a message
    recalled from a past conversation (``message``)."""

    number: int
    evidence: EvidenceSource | None = None
    message: RecalledMessage | None = None

    @property
    def label(self) -> str:
        """What the source is, as plain text (a chip's tooltip, *Copy*'s source list):
        untrusted words (a file's name, a chat's title, a message) are quoted as is."""
        if self.evidence is not None:
            snippet = _clipped(self.evidence.snippet)
            return f"{self.evidence.citation()}: {snippet}" if snippet else self.evidence.citation()
        message = self.message
        if message is None:
            return ""
        title = message.conversation_title or "untitled"
        return (
            f'{message.speaker}, {message.created_at[:10]}, in the chat "{title}": '
            f"{_clipped(message.content)}"
        )

    @property
    def short_label(self) -> str:
        """One line naming the source (*Copy*'s list of sources)."""
        if self.evidence is not None:
            return self.evidence.citation()
        message = self.message
        if message is None:
            return ""
        title = message.conversation_title or "untitled"
        return f'{message.speaker}, {message.created_at[:10]}, in the chat "{title}"'


def _clipped(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= LABEL_TEXT_CHARS else line[: LABEL_TEXT_CHARS - 1] + "…"


def recalled_number(passages: int, rank: int, memories_before: int) -> int:
    """The number of a recalled message placed at ``rank`` (1-based among everything
    the prompt placed), after ``passages`` passages and ``memories_before`` memories."""
    return passages + rank - memories_before


def number_sources(
    evidence: Sequence[EvidenceSource], sources: Sequence[AnswerSource]
) -> list[tuple[int, EvidenceSource | AnswerSource]]:
    """Each citable source of an answer with its number: passages by their rank, then
    recalled messages (see the module's note), in number order."""
    passages = max((e.rank for e in evidence), default=0)
    numbered: list[tuple[int, EvidenceSource | AnswerSource]] = [(e.rank, e) for e in evidence]
    memories_before = 0
    for source in sorted(sources, key=lambda s: s.rank):
        if source.recalled_message_id is None:
            memories_before += 1
            continue
        numbered.append((recalled_number(passages, source.rank, memories_before), source))
    return sorted(numbered, key=lambda pair: pair[0])


def citations_of(
    evidence: Sequence[EvidenceSource],
    sources: Sequence[AnswerSource],
    recalled: Mapping[int, RecalledMessage],
) -> tuple[Citation, ...]:
    """An answer's citations; ``recalled``: the recalled messages by id (one that is
    gone since has no citation, and its number none)."""
    citations = []
    for number, source in number_sources(evidence, sources):
        if isinstance(source, EvidenceSource):
            citations.append(Citation(number, evidence=source))
        elif (message := recalled.get(source.recalled_message_id)) is not None:
            citations.append(Citation(number, message=message))
    return tuple(citations)


# -- markers in an answer's text ----------------------------------------------------------

# A run of markers: "[1]", "[1][2]", "[1, 2]", "[1] [2]", "Tuesdays[1]" (models write
# both). Not a link's text ("[1](…)"), a reference ("[1]: …", "[text][1]") nor an
# escaped bracket; an index ("list[1]") is code, and code in backticks is left alone.
_MARKER = r"\[\s*\d{1,4}(?:\s*[,;]\s*\d{1,4})*\s*\]"
_MARKER_RUN = re.compile(rf"[ \t]*(?<![\]\[!\\])(?:{_MARKER}[ \t]*)*{_MARKER}(?![(\[:])")
_NUMBER = re.compile(r"\d+")
_INLINE_CODE = re.compile(r"(`+).*?\1")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A line that starts a paragraph of its own: a list item, a heading, a quote, a rule.
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|>)")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s")
_TABLE_ROW = re.compile(r"^\s*\|")

#: Puts a paragraph's citation numbers back into the text (a chip, "[1]").
Chips = Callable[[Sequence[int]], str]


def place_citations(text: str, valid: Iterable[int], chips: Chips) -> str:
    """``text`` with each paragraph's markers taken out and its real citation numbers
    (those in ``valid``) put at its end by ``chips``; a table row's markers are
    replaced where they stand. Code is untouched."""
    valid = frozenset(valid)
    lines = text.split("\n")
    out: list[str] = []
    pending: list[int] = []  # numbers of the paragraph being read
    last_prose = -1  # index in ``out`` of its last line
    fence: str | None = None

    def close_paragraph() -> None:
        nonlocal pending
        if pending and last_prose >= 0:
            out[last_prose] = out[last_prose].rstrip() + chips(pending)
        pending = []

    for line in lines:
        if fence is not None:
            out.append(line)
            if line.strip().startswith(fence):
                fence = None
            continue
        opening = _FENCE.match(line)
        if opening:
            close_paragraph()
            fence = opening.group(1)[0] * len(opening.group(1))
            out.append(line)
            continue
        if not line.strip():
            close_paragraph()
            out.append(line)
            continue
        if _TABLE_ROW.match(line):
            close_paragraph()
            out.append(_replace_markers(line, valid, lambda found: chips(found).strip()))
            continue
        if _BLOCK_START.match(line):
            close_paragraph()
        found: list[int] = []

        def take_out(numbers: Sequence[int], found: list[int] = found) -> str:
            found.extend(numbers)
            return ""

        out.append(_replace_markers(line, valid, take_out))
        pending += [n for n in found if n not in pending]
        last_prose = len(out) - 1
        if _HEADING.match(line):
            close_paragraph()  # a heading is a paragraph of one line
    close_paragraph()
    return "\n".join(out)


def _replace_markers(line: str, valid: frozenset[int], replace: Chips) -> str:
    """``line`` with each run of markers outside code replaced by ``replace`` (its
    real numbers, first use only within the run)."""

    def one_run(run: re.Match) -> str:
        numbers: list[int] = []
        for n in (int(n) for n in _NUMBER.findall(run.group())):
            if n in valid and n not in numbers:
                numbers.append(n)
        text = replace(numbers) if numbers else ""
        # Keep one space between the words the run stood between.
        space = " " if run.group()[:1] in " \t" and text else ""
        return space + text

    parts = []
    position = 0
    for code in _INLINE_CODE.finditer(line):
        parts.append(_MARKER_RUN.sub(one_run, line[position : code.start()]))
        parts.append(code.group())
        position = code.end()
    parts.append(_MARKER_RUN.sub(one_run, line[position:]))
    return "".join(parts)


def copied_text(text: str, citations: Sequence[Citation]) -> str:
    """An answer as *Copy* gives it: each paragraph's real citations as ``[n]`` at its
    end, invented ones gone, and the sources it cites listed after it, so the numbers
    still mean something where it is pasted."""
    if not citations:
        return text
    by_number = {c.number: c for c in citations}
    cited: list[int] = []  # in order of first use

    def bracketed(numbers: Sequence[int]) -> str:
        cited.extend(n for n in numbers if n not in cited)
        return "".join(f" [{n}]" for n in numbers)

    placed = place_citations(text, by_number, bracketed)
    if not cited:
        return placed
    listed = "\n".join(f"[{n}] {by_number[n].short_label}" for n in cited)
    return f"{placed.rstrip()}\n\nSources:\n\n{listed}\n"
