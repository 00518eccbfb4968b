"""Parsing JSON from a file the user hands us (an export to import), within limits.

``json.loads`` fails on two hostile shapes with errors that are not
``JSONDecodeError``: nesting deeper than the interpreter's recursion limit
(``[`` x 100,000 is a RecursionError) and an integer longer than Python converts
(4,300 digits: a ValueError). Both become :class:`JsonLimitError`, whose text names the
problem and the limit, for the caller to put in its own one-line refusal.
"""

from __future__ import annotations

import json
from typing import Any

#: No export holds an integer this long (ids, counts and Unix times have under 20
#: digits); a longer one is refused before Python's own 4,300-digit limit is reached.
MAX_INT_DIGITS = 100


class JsonLimitError(ValueError):
    """The JSON is well-formed, or may be, but beyond what an export can be."""


class _LongInteger(Exception):
    def __init__(self, digits: str) -> None:
        self.digits = digits


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _LongInteger(digits)
    return int(digits)


def parse_json(text: str) -> Any:
    """``text``'s JSON value; ``json.JSONDecodeError`` when it isn't JSON,
    :class:`JsonLimitError` when it nests too deeply or holds a too long number."""
    try:
        return json.loads(text, parse_int=_bounded_int)
    except RecursionError:
        raise JsonLimitError(
            "its JSON nests lists or objects thousands of levels deep (an export nests a "
            "few dozen at most)"
        ) from None
    except _LongInteger as long:
        raise JsonLimitError(
            f"it holds a number {len(long.digits.lstrip('-')):,} digits long"
            f"{_place(text, long.digits)} (the limit is {MAX_INT_DIGITS} digits)"
        ) from None


def _place(text: str, digits: str) -> str:
    at = text.find(digits)
    if at < 0:
        return ""
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f" at line {line}, column {column}"
