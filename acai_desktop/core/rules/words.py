"""How text splits into words, one rule for the whole app: full-text queries
(:mod:`acai_desktop.core.memory.query`), conversation search
(:mod:`acai_desktop.core.store.conversation_search`), retrieval's scoring and the
explanations of it all cut text the same way."""

from __future__ import annotations

import re
import unicodedata

# Letters and digits of any script; an apostrophe inside a word ("Caroline's", "don't")
# splits it (the possessive or contraction tail is a stop word of the query module).
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# At most this many distinct terms go into one FTS query: a pasted essay as the query
# would otherwise make every search scan the whole index.
MAX_QUERY_TERMS = 32


def normalise(text: str) -> str:
    """Unicode-normalised, case-folded, accents kept (the index strips them itself)."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str) -> list[str]:
    """Word tokens of ``text``, normalised, in order, with repeats."""
    return _TOKEN.findall(normalise(text))
