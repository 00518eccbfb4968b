"""Checks on text before it becomes a memory: refused with a message the user can act on.

Control characters are refused rather than silently stripped: a NUL or an escape
sequence in a memory almost always means something upstream went wrong (a binary file
pasted, a broken terminal), and quietly changing what the user typed would hide it.
"""

from __future__ import annotations

import re
import unicodedata

from acai_desktop.core.errors import InvalidInputError

#: Longest memory text accepted. A memory is a fact, note or summary, not a document;
#: 20,000 characters is a few pages, far above any real one.
MAX_MEMORY_CHARS = 20_000
MAX_CATEGORY_CHARS = 100

_ALLOWED_CONTROLS = {"\n", "\t"}


_C0_NAMES = (  # noqa: SIM905 - a word list reads best as words
    "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI "
    "DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()


def _describe(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        name = _C0_NAMES[code]
    elif code == 0x7F:
        name = "DEL"
    elif 0x80 <= code < 0xA0:
        name = "C1 control"
    elif 0xD800 <= code < 0xE000:
        name = "undecodable byte"
    else:
        name = unicodedata.name(char, "control character")
    return f"U+{code:04X} ({name})"


# Cc (C0/C1 controls and DEL) except newline and tab, and Cs: lone surrogates, which
# come from undecodable bytes (e.g. a non-UTF-8 command-line argument) and cannot be
# stored as UTF-8. One regular expression scans at C speed (bulk ingestion relies on it).
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _refuse_control_characters(text: str, what: str) -> None:
    found = _FORBIDDEN.search(text)
    if found:
        raise InvalidInputError(
            f"The {what} contains the control character {_describe(found.group())} at "
            f"position {found.start() + 1}; remove it and try again."
        )


def clean_memory_text(text: object, *, what: str = "memory text") -> str:
    """The text as it will be stored (line endings unified, ends trimmed), or an error."""
    if not isinstance(text, str):
        raise InvalidInputError(f"The {what} must be text, not {type(text).__name__}.")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise InvalidInputError(f"The {what} is empty; write something to remember.")
    if len(text) > MAX_MEMORY_CHARS:
        raise InvalidInputError(
            f"The {what} is {len(text):,} characters long; a memory can hold at most "
            f"{MAX_MEMORY_CHARS:,}. Shorten it or split it into several memories."
        )
    _refuse_control_characters(text, what)
    return text


def clean_category(category: object) -> str | None:
    """A category name trimmed to one line, or ``None`` for no category."""
    if category is None:
        return None
    if not isinstance(category, str):
        raise InvalidInputError(f"A category must be text, not {type(category).__name__}.")
    category = category.strip()
    if not category:
        return None
    if len(category) > MAX_CATEGORY_CHARS:
        raise InvalidInputError(
            f"The category is {len(category):,} characters long; the limit is {MAX_CATEGORY_CHARS}."
        )
    if "\n" in category or "\t" in category:
        raise InvalidInputError("A category must be one line of text.")
    _refuse_control_characters(category, "category")
    return category


def clean_confidence(confidence: object) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInputError(f"Confidence must be a number, not {confidence!r}.")
    value = float(confidence)
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise InvalidInputError(f"Confidence must be between 0 and 1, not {confidence!r}.")
    return value
