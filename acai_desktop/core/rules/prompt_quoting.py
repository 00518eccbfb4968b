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


#: Starts the user's own words in a turn's user message that brings data along (the
#: memories and passages found for it come first; see core.memory.context_builder).
USER_MESSAGE_HEADER = "The user's message:"


def asked_text(content: str) -> str:
    """The user's own words in a turn's user message (the whole content when the turn
    brought no data along). Quoted data is one line each (:func:`quote_untrusted`), so
    no memory or passage can forge the header's line."""
    _data, header, asked = content.partition(f"\n\n{USER_MESSAGE_HEADER}\n")
    return asked if header else content
