"""Keep the prompt's own delimiters out of an answer.

The prompt frames memories and document passages in tagged blocks (``<memories>`` …
``</memories>``, ``<documents>`` … ``</documents>``). A small model sometimes echoes its
prompt, tags and all; the user should never see the plumbing. :class:`DelimiterFilter`
drops those tags (any case, spaces inside, the look-alike brackets the prompt builders
neutralise) from a streamed answer. A tag may arrive split over several chunks ("<mem",
"ories>"), so the filter holds back a tail that could still become a tag and lets it go
as soon as it can't.
"""

from __future__ import annotations

import re

#: The words inside the prompt's block tags (see context_builder and prompt_block).
DELIMITER_WORDS = ("memories", "documents")
_OPENING = "<\uff1c\ufe64\u2329\u27e8\u3008"
_CLOSING = ">\uff1e\ufe65\u232a\u27e9\u3009"
_TAG = re.compile(
    rf"[{_OPENING}]\s*/?\s*(?:{'|'.join(DELIMITER_WORDS)})\s*[{_CLOSING}]", re.IGNORECASE
)
#: An unfinished tag: an opening bracket, maybe a slash, part of a word, maybe spaces.
_UNFINISHED = re.compile(rf"[{_OPENING}]\s*/?\s*([a-z]*)(\s*)\Z", re.IGNORECASE)
#: The longest tail held back (a bracket, spaces, a slash and a word fit in it).
_MAX_HELD = 32


def strip_delimiters(text: str) -> str:
    """``text`` without any of the prompt's block tags."""
    return _TAG.sub("", text)


def _could_become_tag(tail: str) -> bool:
    match = _UNFINISHED.match(tail)
    if match is None or len(tail) > _MAX_HELD:
        return False
    word, spaces = match.group(1).lower(), match.group(2)
    if spaces and word:  # "<memories " may still close; "<mem " can't
        return word in DELIMITER_WORDS
    return any(full.startswith(word) for full in DELIMITER_WORDS)


class DelimiterFilter:
    """Feed it an answer's chunks in order; it returns what may be shown of each."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = strip_delimiters(self._held + chunk)
        start = max(text.rfind(bracket) for bracket in _OPENING)
        if start >= 0 and _could_become_tag(text[start:]):
            self._held = text[start:]
            return text[:start]
        self._held = ""
        return text

    def flush(self) -> str:
        """The end of the answer: what was held back was not a tag after all."""
        held, self._held = self._held, ""
        return held
