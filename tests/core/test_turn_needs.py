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
        "private": False,
    }
    assert 5 < needs["prompt_tokens"] < 20
    assert plan_message("ok thanks").needs.kind is TurnKind.CHAT


def test_the_meaning_signal_names_what_the_rules_miss_and_leaves_chat_alone():
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
    from acai_desktop.core.routing.turn_meaning import turn_meaning_for

    embedder = WordLlamaEmbedder()
    meaning = turn_meaning_for(embedder)
    assert meaning is not None
    missed = {
        "Why are tuples immutable?": TurnKind.CODE,
        "What's the difference between a stack and a queue?": TurnKind.CODE,
        "What is the remainder when 50 is divided by 6?": TurnKind.REASONING,
    }
    assert {text_kind(text) for text in missed} == {TurnKind.CHAT}  # no rule fires
    # Before the model has loaded, embedding would not be instant: the rules decide.
    assert analyse_turn("Why are tuples immutable?", meaning=meaning).kind is TurnKind.CHAT
    embedder.embed_sync(["load"])
    for text, kind in missed.items():
        assert analyse_turn(text, meaning=meaning).kind is kind
    for chat in ("Who wrote The Hobbit?", "What's the capital of Peru?", "I feel tired today."):
        assert analyse_turn(chat, meaning=meaning).kind is TurnKind.CHAT
    assert turn_meaning_for(object()) is None  # another embedder: no centroids for it


def test_the_shipped_centroids_are_the_development_sets():
    import json

    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
    from acai_desktop.core.resources import resource_text
    from acai_desktop.core.routing.turn_meaning import CENTROIDS_FILE
    from benchmarks.turn_kind_centroids import centroids

    shipped = json.loads(resource_text(*CENTROIDS_FILE))
    assert shipped == centroids(WordLlamaEmbedder()), (
        "run python -m benchmarks.turn_kind_centroids after changing the router's dev set"
    )
