"""Importing another assistant's memory: ChatGPT's saved memories or Claude's memory text
(read into lines by :mod:`~acai_desktop.core.memory.assistant_formats`), each line taken
in by the memory's one intake (:meth:`FactIntake.take`), as another AI tool's
``remember`` is: ground -> the same fact already? -> "Ask before remembering" on? a
suggestion : a memory.

**What a line's evidence is.** The intake stores a fact only if the user's own words
support it. A saved-memories list *is* the user's words about themselves: the list they
kept in that assistant, saw in its settings and chose to bring here. So each line is its
own evidence, and what the intake stores as the memory's source is the line as the list
has it (in the conversation "ChatGPT (memory import)"). The grounding check still runs,
and still matters: the fact is the line turned to "The user ..." (``fact_of``) and must
say nothing the line doesn't, and a line of the wrong shape is refused as a fact from a
chat would be — an instruction aimed at the assistant (a list another program wrote may
carry one), a question, a placeholder, a fragment, text that isn't about the user. A
line that tells the assistant how to answer is said to belong in custom instructions.

**Importing the same list again adds nothing.** A line is kept as a message of the
assistant's conversation, once (the intake finds the same words there again). A line
whose message became a memory or a suggestion before is *merged*: reported, not taken
again, whatever the user did with it since (edited it, forgot it, dismissed it). A line
whose fact is already remembered in the same words, from any source, is merged by the
intake itself; one already waiting for a yes is merged too. Nothing is reinforced: a
list read again is no new evidence.

The report gives each line's outcome — kept, merged, suggested or refused — with the
reason, for the command line (``memories import --format chatgpt-memories|claude-memory``)
and the window's report dialog alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.text import read_utf8
from acai_desktop.core.memory.assistant_formats import (
    ListFormat,
    MemoryLine,
    fact_of,
    read_memory_list,
)
from acai_desktop.core.memory.intake import IntakeOutcome, IntakeStatus, Via
from acai_desktop.core.memory.memory_block import one_line
from acai_desktop.core.memory.validation import clean_memory_text
from acai_desktop.core.records.memories import MemoryStatus, SuggestionStatus
from acai_desktop.core.store.memory_list_lines import TakenLine, lines_taken_before

#: Who hands the lines in, for the memory's history ("ChatGPT via memory import") and
#: the conversation that keeps them ("ChatGPT (memory import)").
VIA = {
    ListFormat.CHATGPT: Via("ChatGPT", "memory import"),
    ListFormat.CLAUDE: Via("Claude", "memory import"),
}
#: A memory list is a few kilobytes; a file far larger is something else.
MAX_LIST_BYTES = 4 * 1024 * 1024
NOTHING_CHANGED = "nothing was changed"
#: A line that tells the assistant how to answer ("Always answer in British English"):
#: no fact about the user, but an instruction the user may well want to keep.
_TO_THE_ASSISTANT = re.compile(
    r"^(?:always|never|please|don't|do not|use|write|respond|reply|answer|keep|avoid|be|"
    r"call me|address me|format|include|give|show|explain|ask|stop|start|refer to me)\b",
    re.IGNORECASE,
)
CUSTOM_INSTRUCTIONS_HINT = "how to answer belongs in Settings → Custom instructions"


class LineOutcome(StrEnum):
    KEPT = "kept"  # a new memory
    MERGED = "merged"  # remembered (or waiting) already: nothing added
    SUGGESTED = "suggested"  # waits for the user's yes
    REFUSED = "refused"  # not a fact about the user, with the reason


@dataclass(frozen=True)
class LineReport:
    line: int
    text: str
    category: str | None
    outcome: LineOutcome
    reason: str = ""
    memory_id: int | None = None
    suggestion_id: int | None = None

    def to_dict(self) -> dict:
        return {
            "line": self.line,
            "text": self.text,
            "category": self.category,
            "outcome": self.outcome.value,
            "reason": self.reason,
            "memory_id": self.memory_id,
            "suggestion_id": self.suggestion_id,
        }


@dataclass(frozen=True)
class ListImportReport:
    list_format: ListFormat
    lines: tuple[LineReport, ...]

    def count(self, outcome: LineOutcome) -> int:
        return sum(1 for line in self.lines if line.outcome is outcome)

    def to_dict(self) -> dict:
        return {
            "format": self.list_format.value,
            "read": len(self.lines),
            **{outcome.value: self.count(outcome) for outcome in LineOutcome},
            "lines": [line.to_dict() for line in self.lines],
        }

    def text(self) -> str:
        """The whole report as plain text (see :func:`report_text`)."""
        return report_text(self.to_dict())


def memories(count: int) -> str:
    """ "1 memory", "3 memories"."""
    return f"{count} {'memory' if count == 1 else 'memories'}"


def report_text(report: dict) -> str:
    """A report (:meth:`ListImportReport.to_dict`) as plain text: what was read and what
    became of it, then each outcome's lines with their reasons, one line each."""
    counts = ", ".join(f"{report[outcome.value]} {outcome.value}" for outcome in LineOutcome)
    label = ListFormat(report["format"]).label
    parts = [f"Read {memories(report['read'])} from {label}: {counts}."]
    for outcome, title in _SECTIONS:
        lines = [line for line in report["lines"] if line["outcome"] == outcome.value]
        if not lines:
            continue
        parts.append(f"\n{title} ({len(lines)}):")
        for line in lines:
            why = f" — {line['reason']}" if line["reason"] else ""
            parts.append(f"  line {line['line']}: {one_line(line['text'])}{why}")
    return "\n".join(parts)


_SECTIONS = (
    (LineOutcome.KEPT, "Kept as new memories"),
    (LineOutcome.SUGGESTED, "Waiting for your yes in the memory panel"),
    (LineOutcome.MERGED, "Merged with what you already have"),
    (LineOutcome.REFUSED, "Refused"),
)


def read_list_file(path: str | Path) -> str:
    """A memory list's text from a file (UTF-8, a byte-order mark dropped), or an
    :class:`InvalidInputError` saying why not, before anything is changed."""
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0  # missing or unreadable: read_utf8 says which
    if size > MAX_LIST_BYTES:
        raise InvalidInputError(
            f"{path} is {size / 1024**2:.1f} MB; a memory list is far smaller (at most "
            f"{MAX_LIST_BYTES // 1024**2} MB are read); {NOTHING_CHANGED}."
        )
    return read_utf8(path, NOTHING_CHANGED)


async def import_memory_list(
    memory,
    text: str,
    list_format: ListFormat,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> ListImportReport:
    """Take the list ``text`` into ``memory`` (a :class:`~acai_desktop.core.memory.
    front_door.Memory`) line by line, as the module docstring says; ``progress(done,
    total)`` after each line. A list too long, or with no memory in it, is refused
    before the first line."""
    entries = read_memory_list(text, list_format)
    if not entries:
        raise InvalidInputError(
            f"No memories found: the text holds no lines of {list_format.label}; {NOTHING_CHANGED}."
        )
    via = VIA[list_format]
    taken = await memory.store.run(lines_taken_before, via.source_id)
    reports = []
    for done, entry in enumerate(entries, start=1):
        reports.append(await _take_line(memory, entry, via, taken))
        if progress is not None:
            progress(done, len(entries))
    return ListImportReport(list_format, tuple(reports))


async def _take_line(
    memory, entry: MemoryLine, via: Via, taken: dict[str, TakenLine]
) -> LineReport:
    def report(outcome: LineOutcome, reason: str = "", **ids) -> LineReport:
        return LineReport(entry.line, entry.text, entry.category, outcome, reason, **ids)

    try:
        before = taken.get(clean_memory_text(entry.text, what="line"))
        if before is not None:
            return report(
                LineOutcome.MERGED,
                _imported_before(before),
                memory_id=before.memory_id,
                suggestion_id=None if before.memory_id else before.suggestion_id,
            )
        outcome = await memory.intake(fact_of(entry.text), entry.text, via, entry.category)
    except InvalidInputError as refusal:  # a control character, a category too long
        return report(LineOutcome.REFUSED, str(refusal))
    return _reported(outcome, report, entry.text)


def _imported_before(before: TakenLine) -> str:
    if before.memory_id is not None:
        since = {
            MemoryStatus.FORGOTTEN.value: "; you forgot it since",
            MemoryStatus.SUPERSEDED.value: "; replaced since",
        }.get(before.memory_status, "")
        return f"imported before{since} (memory {before.memory_id})"
    if before.suggestion_status == SuggestionStatus.DISMISSED.value:
        return "imported before; you dismissed it"
    return f"imported before; waits for your yes (suggestion {before.suggestion_id})"


def _reported(outcome: IntakeOutcome, report, text: str) -> LineReport:
    memory_id = outcome.memory.id if outcome.memory is not None else None
    if outcome.status is IntakeStatus.REMEMBERED:
        return report(LineOutcome.KEPT, memory_id=memory_id)
    if outcome.status is IntakeStatus.ALREADY_REMEMBERED:
        return report(
            LineOutcome.MERGED, f"already remembered (memory {memory_id})", memory_id=memory_id
        )
    if outcome.status is IntakeStatus.SUGGESTED and outcome.suggestion is None:
        return report(LineOutcome.MERGED, "already waits for your yes")
    if outcome.status is IntakeStatus.SUGGESTED:
        return report(
            LineOutcome.SUGGESTED,
            '"Ask before remembering" is on',
            suggestion_id=outcome.suggestion.id,
        )
    reason = outcome.reason
    if _TO_THE_ASSISTANT.match(text):
        reason = f"{reason}; {CUSTOM_INSTRUCTIONS_HINT}"
    return report(LineOutcome.REFUSED, reason)
