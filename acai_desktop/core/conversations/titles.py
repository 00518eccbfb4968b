"""The rule for a conversation title the user types (the store enforces it; the rename
dialog checks it first, so it lives outside the store, where the UI may import it)."""

from __future__ import annotations

import re

from acai_desktop.core.errors import InvalidInputError

MAX_TITLE_CHARS = 200
#: The longest automatic title (first words, or the model's short title).
AUTO_TITLE_CHARS = 60
# Control characters other than whitespace (NUL, escape, DEL...): invisible on screen,
# and NUL cuts C strings and file tools short (a Markdown export ended at it).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def one_line(text: str) -> str:
    """``text`` as a title shows it: one line of words, without control characters."""
    return " ".join(_CONTROL.sub("", text).split())


def clean_title(title: object) -> str:
    """A title the user typed: one line, not empty, at most MAX_TITLE_CHARS characters."""
    if not isinstance(title, str):
        raise InvalidInputError("A conversation title must be text.")
    if _CONTROL.search(title):
        raise InvalidInputError(
            "A conversation title can't contain control characters (such as NUL)."
        )
    line = one_line(title)
    if not line:
        raise InvalidInputError("A conversation title can't be empty.")
    if len(line) > MAX_TITLE_CHARS:
        raise InvalidInputError(
            f"A conversation title can be at most {MAX_TITLE_CHARS} characters "
            f"(this one has {len(line)})."
        )
    return line


def title_from_words(text: str, limit: int = AUTO_TITLE_CHARS) -> str:
    """The first words of ``text`` as a title: one line, at most ``limit`` characters,
    cut at a word's end where one is near (with an ellipsis)."""
    line = one_line(text)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


#: A title made of the user's first words has at most this many of them.
FIRST_WORDS = 6
#: A first sentence this short is the whole title ("I'm vegetarian and I live in Porto").
WHOLE_SENTENCE_WORDS = 8
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
#: Words a cut title should not end on ("Plan a trip to…" reads better as "Plan a trip…").
_DANGLING_WORDS = (
    "a an the of to in on at by for from with and or but my your our their his her its is "
    "are was were be i i'm we you me that this"
)
_DANGLING = frozenset(_DANGLING_WORDS.split())


def first_words_title(text: str, words: int = FIRST_WORDS) -> str:
    """The first words of the user's message as a title: its first sentence when that
    is short (without its full stop), else its first ``words`` words with "…"; cut at a
    word's end, one line, at most AUTO_TITLE_CHARS characters. Empty text: ""."""
    line = one_line(text)
    sentence = _SENTENCE_END.split(line, maxsplit=1)[0]
    found = sentence.split()
    if 0 < len(found) <= WHOLE_SENTENCE_WORDS:
        title = sentence.rstrip(" .!,;:-") if sentence.endswith(".") else sentence
        title = title.rstrip(" ,;:-")
    else:
        found = line.split()
        kept = found[:words]
        while len(kept) > 2 and kept[-1].casefold().strip(",;:") in _DANGLING:
            kept.pop()
        title = " ".join(kept)
        if len(found) > len(kept):
            title = title.rstrip(" ,;:.-") + "…"
    return title_from_words(title or line, AUTO_TITLE_CHARS)
