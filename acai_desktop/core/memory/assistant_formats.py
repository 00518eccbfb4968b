"""Other assistants' memory as text: reading a ChatGPT saved-memories list and Claude's
memory text into lines, each a fact for the memory's intake
(:mod:`~acai_desktop.core.memory.list_import` takes them in).

Neither assistant has a file format for its memory. ChatGPT shows its saved memories in
Settings → Personalization → Manage memories, one a line, and asked for them it writes
a numbered list ("1. [2024-04-26]. User loves dogs."). Claude takes and gives memory as
pasted text: its import prompt asks for "[date saved, if available] - memory content"
lines in a code block, often under category headings, and its own memory summary is
prose under bold headings. So one tolerant reader serves both; what it accepts:

* the text with or without a byte-order mark, with Windows, old Mac or Unix line ends;
* blank lines, code fences (```), rules (---, ***) and a title line ("Saved memories",
  "Model Set Context", any Markdown heading or line ending in a colon): skipped;
* in front of an entry: a bullet (- * + • · ‣ ◦ ▪ – —), a number ("1." "2)" "(3)") and
  a date in brackets ("[2024-04-26]" "[Mar 2025]") or an ISO date with a dash or colon,
  each removed; Markdown emphasis (**, __) and backslash escapes are undone;
* headings: a Markdown heading (``## Work``), a line in bold alone (``**Work context**``),
  a line ending in a colon, a bulleted item ending in a colon whose next line is
  indented under it, and, in a list whose entries are bulleted or numbered, a short
  line of its own (at most six words, no full stop; a list is "bulleted" when at least
  half its lines are). In Claude's text a heading of at
  most six words names the category of the lines under it (a longer one is an
  introduction, "Here is everything I remember:"); ChatGPT's list has no categories,
  so there headings are only skipped;
* an entry longer than one fact may be (``MAX_FACT_CHARS``, 300 characters) is cut into
  sentences: Claude's memory summary writes paragraphs.

Whose the fact is: ChatGPT writes its memories without a subject ("Is vegetarian",
"Prefers short answers") or with "User" ("User loves dogs"); Claude with "the user", or
as "Name: Ana". :func:`fact_of` turns such an entry into a fact about "The user", as
the intake names every fact (core.rules.user_subject); an entry it cannot read that way
goes in as written, and the grounding check says why it is refused (Claude's summary
names the user by name: "Ana works at ...", which reads as a fact about someone else).

The export's memory block (:mod:`~acai_desktop.core.memory.memory_block`) is written in
this grammar, so an exported block reads back as the same facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.rules.grounding import MAX_FACT_CHARS


class ListFormat(StrEnum):
    CHATGPT = "chatgpt-memories"
    CLAUDE = "claude-memory"

    @property
    def label(self) -> str:
        """The list as its user knows it: "ChatGPT's saved memories"."""
        return LABELS[self]


LABELS = {ListFormat.CHATGPT: "ChatGPT's saved memories", ListFormat.CLAUDE: "Claude's memory"}

#: The most entries one import takes: a saved-memories list holds a few hundred at
#: most, and each entry is a fact checked and written on its own.
MAX_LIST_ENTRIES = 5_000
#: A heading of at most this many words names a category; a longer one introduces.
MAX_HEADING_WORDS = 6


@dataclass(frozen=True)
class MemoryLine:
    """One entry of a list: its line in the text (from 1), the user's words as the list
    has them (markers removed) and the category of the heading above it, if any."""

    line: int
    text: str
    category: str | None = None


_BULLET = re.compile(r"^(?:[-*+•·‣◦▪–—]|\(?\d{1,4}[.)])\s+")
_DATE = re.compile(
    r"^(?:\[(?=[^\]]*\d)[^\]\n]{1,40}\]|\(?\d{4}-\d{2}-\d{2}\)?(?=\s*[-–—:]))\s*[.:\-–—]?\s+"
)
_FENCE = re.compile(r"^(?:```|~~~)")
_RULE = re.compile(r"^(?:[-*_=]\s*){3,}$")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}(?=\s|$)\s*(.*?)\s*#*$")
_BOLD_LINE = re.compile(r"^(\*\*|__)(.+?)\1\s*:?$|^(\*\*|__)(.+?):(\*\*|__)$")
_EMPHASIS = re.compile(r"\*\*|__")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
#: What ChatGPT's and Claude's pages call the list, pasted with it.
_TITLES = frozenset(
    {"saved memories", "memories", "memory", "manage memories", "model set context",
     "my memories", "chatgpt memories", "claude memories", "claude's memory"}
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“‘'(])")
_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "inc", "ltd", "co", "vs", "etc",
     "e.g", "i.e", "approx", "no", "mt", "ft"}
)  # fmt: skip


def read_memory_list(text: str, list_format: ListFormat) -> list[MemoryLine]:
    """The entries of a pasted or saved memory list (see the module docstring), or an
    :class:`InvalidInputError` when it holds more than :data:`MAX_LIST_ENTRIES`."""
    lines = text.removeprefix("\ufeff").splitlines()
    marked = _marked(lines)
    categories = list_format is ListFormat.CLAUDE
    entries: list[MemoryLine] = []
    category: str | None = None
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or _FENCE.match(stripped) or _RULE.match(stripped):
            continue
        heading = _heading(stripped, marked, _indented_below(lines, index))
        if heading is not None:
            if categories:  # an introduction ends the category before it
                category = heading if len(heading.split()) <= MAX_HEADING_WORDS else None
            continue
        entry = _entry_text(stripped)
        if not entry:
            continue
        for sentence in _sentences(entry) if len(entry) > MAX_FACT_CHARS else [entry]:
            entries.append(MemoryLine(index + 1, sentence, category))
    if len(entries) > MAX_LIST_ENTRIES:
        raise InvalidInputError(
            f"The list holds {len(entries):,} memories; an import takes at most "
            f"{MAX_LIST_ENTRIES:,} at a time. Split it; nothing was changed."
        )
    return entries


def _marked(lines: list[str]) -> bool:
    """Whether the list's entries carry bullets or numbers: at least half its lines do
    (the rest are headings, or an entry that happens to start with a dash)."""
    filled = [line.strip() for line in lines if line.strip()]
    bulleted = sum(1 for line in filled if _BULLET.match(line))
    return bulleted > 0 and bulleted * 2 >= len(filled)


def _indented_below(lines: list[str], index: int) -> bool:
    """Whether the next non-blank line is indented deeper than this one."""
    depth = len(lines[index]) - len(lines[index].lstrip())
    for below in lines[index + 1 :]:
        if below.strip():
            return len(below) - len(below.lstrip()) > depth
    return False


def _heading(line: str, marked: bool, parent: bool) -> str | None:
    """The heading's name when ``line`` is a heading ("" for one with no name), else
    None. ``marked``: the list's entries carry bullets or numbers; ``parent``: the line
    has lines indented under it."""
    if found := _MARKDOWN_HEADING.match(line):
        return _plain(found.group(1)).rstrip(":").strip()
    if found := _BOLD_LINE.match(line):
        return _plain(found.group(2) or found.group(4)).rstrip(":").strip()
    bullet = _BULLET.match(line)
    words = _plain(line[bullet.end() :] if bullet else line).strip()
    if words.endswith(":") and (not bullet or parent):
        return words.rstrip(":").strip()
    if words.lower().rstrip(".") in _TITLES:
        return words.rstrip(".")
    short = len(words.split()) <= MAX_HEADING_WORDS and not words.endswith((".", "!", "?"))
    return words if marked and not bullet and short else None


def _entry_text(line: str) -> str:
    """An entry's words: its bullet, number and date removed, emphasis undone."""
    line = _BULLET.sub("", line, count=1)
    line = _DATE.sub("", line, count=1)
    line = _BULLET.sub("", line, count=1)  # "[2024-04-26] - fact"
    return " ".join(_plain(line).split())


def _plain(text: str) -> str:
    """Text with Markdown emphasis and backslash escapes undone."""
    return _ESCAPE.sub(r"\1", _EMPHASIS.sub("", text))


def _sentences(text: str) -> list[str]:
    """``text`` cut after each sentence, but not after "Dr." or an initial ("J.")."""
    sentences, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        before = text[start : end.start()].rsplit(None, 1)[-1].rstrip(".!?").lower()
        if before in _ABBREVIATIONS or (len(before) == 1 and before.isalpha()):
            continue
        sentences.append(text[start : end.start()].strip())
        start = end.end()
    sentences.append(text[start:].strip())
    return [sentence for sentence in sentences if sentence]


# -- whose fact it is ------------------------------------------------------------------

_USER_SUBJECT = re.compile(r"^(?:the\s+)?user(?=\s|'s|’s)", re.IGNORECASE)
_VERB_FIRST = frozenset(
    {"is", "isn't", "has", "hasn't", "was", "wasn't", "does", "doesn't", "did", "didn't",
     "had", "can", "can't", "cannot", "will", "won't", "would", "should", "must", "grew",
     "went", "got", "became", "began", "bought", "built", "came", "drove", "felt", "found",
     "gave", "knew", "left", "lost", "made", "met", "ran", "saw", "sold", "spent", "took",
     "taught", "thought", "told", "won", "wore", "wrote", "speaks", "studies"}
)  # fmt: skip
_ADVERBS = frozenset(
    {"currently", "recently", "often", "usually", "always", "never", "sometimes", "also",
     "still", "now", "previously", "formerly", "once", "frequently", "regularly", "mostly",
     "generally", "typically", "rarely", "no", "already"}
)  # fmt: skip
#: After a plural noun ("Goals include ...", "Kids are ..."): the first word is no verb.
_PLURAL_SUBJECT_VERBS = frozenset({"are", "were", "have", "include"})
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i’m|i've|i’ve|my)\b", re.IGNORECASE)
_KEY_VALUE = re.compile(r"^([A-Za-z][A-Za-z' ]{1,30}?)\s*:\s+(\S.*)$")


def fact_of(entry: str) -> str:
    """``entry`` as a fact about the user, as far as its wording tells: "User loves dogs"
    -> "The user loves dogs"; "Is vegetarian" -> "is vegetarian" (the intake then names
    the subject: "The user is vegetarian"); "Name: Ana Silva" -> "The user's name is Ana
    Silva"; "Hobbies include chess" -> "The user's hobbies include chess". Anything else
    is returned as it is (first person is the intake's to turn)."""
    if found := _USER_SUBJECT.match(entry):
        return "The user" + entry[found.end() :]
    found = _KEY_VALUE.match(entry)
    if found and len(found.group(1).split()) <= 3:
        key, value = found.group(1).strip().lower(), found.group(2).strip()
        said = value[:1].upper() + value[1:]
        if _FIRST_PERSON.match(value) or fact_of(said) != said:  # a sentence of its own
            return fact_of(said)
        verb = "are" if key.endswith("s") and not key.endswith("ss") else "is"
        return f"The user's {key} {verb} {value}"
    words = entry.split()
    if len(words) < 2 or not entry[:1].isupper():
        return entry
    if _verb_first(words):
        return entry[:1].lower() + entry[1:]
    if _plural_subject(words):  # "Hobbies include chess" -> "The user's hobbies ..."
        return "The user's " + entry[:1].lower() + entry[1:]
    return entry


def _plural_subject(words: list[str]) -> bool:
    first, second = (word.lower() for word in words[:2])
    return first.isalpha() and first.endswith("s") and second in _PLURAL_SUBJECT_VERBS


def _verb_first(words: list[str]) -> bool:
    """Whether the entry starts with its verb ("Prefers", "Moved", "Currently works")."""
    first, second = (word.lower().strip(".,;:!?") for word in words[:2])
    if first in _ADVERBS:
        return second in _VERB_FIRST or _third_person_or_past(second)
    if first in _VERB_FIRST:
        return True
    return _third_person_or_past(first) and second not in _PLURAL_SUBJECT_VERBS


def _third_person_or_past(word: str) -> bool:
    if len(word) <= 3 or not word.isalpha():
        return False
    if word.endswith("ed"):
        return True
    return word.endswith("s") and not word.endswith(("ss", "us", "is", "ics"))
