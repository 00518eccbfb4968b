"""The token estimate's character classes, written to compile quickly, still sort every
character as the estimate's definition says (core/memory/tokens.py)."""

from __future__ import annotations

import re

from acai_desktop.core.memory import tokens

#: Every Unicode character that can be in a Python str from text (no lone surrogates).
EVERY_CHARACTER = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def test_punctuation_is_ascii_that_is_neither_space_nor_letter_nor_digit():
    by_definition = re.compile(r"[^\sA-Za-z0-9\x80-\U0010ffff]")
    assert tokens._PUNCTUATION.findall(EVERY_CHARACTER) == by_definition.findall(EVERY_CHARACTER)


def test_non_ascii_is_every_character_from_0x80_on():
    found = tokens._NON_ASCII.findall(EVERY_CHARACTER)
    assert found == [c for c in EVERY_CHARACTER if ord(c) >= 0x80]


def test_the_estimate_of_mixed_text():
    # 3 words + "," and "!" = 5 by words; 13 ASCII characters -> 4 by characters; 2 CJK.
    assert tokens.estimate_tokens("Hi, big 世界 day!") == 5 + 2
