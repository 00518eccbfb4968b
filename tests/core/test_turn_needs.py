"""Task analysis before a turn (issue 42): the kind a turn's words and files ask for."""

import pytest

from acai_desktop.core.routing.turn_kinds import TurnKind, text_kind
from acai_desktop.core.routing.turn_needs import (
    LONG_CONTEXT_TOKENS,
    AttachedFile,
    analyse_turn,
)
from acai_desktop.core.turns.planner import plan_message


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Write a Python function that parses ISO dates.", TurnKind.CODE),
        ("Create a script for a two-minute YouTube intro about composting.", TurnKind.WRITING),
        ("Write a script that renames my photos by date.", TurnKind.CODE),
        ("In a class of 30, 12 play chess. How many don't?", TurnKind.REASONING),
        ("Write a proof that there are infinitely many primes.", TurnKind.REASONING),
        ("Write a 1,000-word story about a lighthouse.", TurnKind.WRITING),
        ("Who won the 2018 World Cup?", TurnKind.CHAT),
        ("How do I write a good CV?", TurnKind.CHAT),
        ("What's a good gift for a 10 year old?", TurnKind.CHAT),
        ("Explain what inflation is in simple terms.", TurnKind.CHAT),
        ("Compose a haiku sequence about rain.", TurnKind.WRITING),
        ("Why am I getting `KeyError: 'id'` here?", TurnKind.CODE),
    ],
)
def test_the_words_decide_among_code_reasoning_writing_and_chat(text, kind):
    assert text_kind(text) is kind


def test_an_image_makes_a_turn_vision_whatever_the_words_ask():
    needs = analyse_turn("What is wrong with my code here?", (AttachedFile("s.png", True),))
    assert needs.kind is TurnKind.VISION and needs.needs_vision
    assert needs.text_kind is TurnKind.CODE


def test_attached_text_past_8k_tokens_makes_a_turn_long():
    halves = (AttachedFile("a.txt", tokens=4000), AttachedFile("b.txt", tokens=4000))
    assert analyse_turn("Compare these two drafts.", halves).kind is TurnKind.CHAT
    bigger = (*halves, AttachedFile("c.txt", tokens=LONG_CONTEXT_TOKENS - 8000))
    needs = analyse_turn("Compare these drafts.", bigger)
    assert needs.kind is TurnKind.LONG
    assert needs.prompt_tokens > LONG_CONTEXT_TOKENS


def test_the_plan_stored_with_a_message_says_what_the_turn_needs():
    needs = plan_message("Draft a toast for my sister's wedding.").to_dict()["needs"]
    assert needs == {
        "kind": "writing",
        "text_kind": "writing",
        "prompt_tokens": needs["prompt_tokens"],
        "needs_vision": False,
    }
    assert 5 < needs["prompt_tokens"] < 20
    assert plan_message("ok thanks").needs.kind is TurnKind.CHAT
