"""Untrusted text quoted inside the system prompt's data blocks, made harmless in one place.

The prompt frames untrusted text (memories written from past conversations, passages of
the user's documents) in tagged blocks: ``<memories>`` ... ``</memories>`` and
``<documents>`` ... ``</documents>``. A quoted line must not end its own block early,
nor open or close *another* block: a document saying ``</documents><memories>`` would
otherwise forge a block of "memories" inside the evidence. So every block's delimiters
are neutralised in every block, by this one function.
"""

from __future__ import annotations

import re

#: The tag names of every data block in the prompt (``<name>`` ... ``</name>``).
#: ``exchange`` frames the first exchange that the title call names.
PROMPT_BLOCK_TAGS = ("memories", "documents", "exchange")

# "<memories>", "</ Documents >", fullwidth "＜/memories＞", a bare "<memor": anything a
# model could take for a block's delimiter loses its bracket. The stems also catch the
# singular forms ("<memory>", "<document>").
_STEMS = "|".join(re.escape(tag[:5]) for tag in PROMPT_BLOCK_TAGS)
_DELIMITER_LOOK_ALIKE = re.compile(
    rf"[<\uff1c\ufe64\u2329\u27e8\u3008](?=\s*/?\s*(?:{_STEMS}))", re.IGNORECASE
)
NEUTRAL_BRACKET = "‹"


def quote_untrusted(text: str) -> str:
    """``text`` as one line, with every prompt block's delimiter look-alikes disarmed."""
    return _DELIMITER_LOOK_ALIKE.sub(NEUTRAL_BRACKET, " ".join(text.split()))
