"""Why a source fed an answer, in words: strength, shared words, matching sentences."""

from __future__ import annotations

from acai_desktop.core.memory.explain import explain, matching_sentences, shared_words, strength


def test_strength_is_strong_or_some_never_weak_for_a_source_that_passed_the_floor():
    assert [strength(s) for s in (0.9, 0.45, 0.3, 0.25, 0.1, 0.0)] == [
        "strong", "strong", "some", "some", "some", "some",
    ]  # fmt: skip


def test_shared_words_are_named_as_the_memory_writes_them_once_per_stem():
    assert shared_words("Am I allergic to peanuts?", "The user is allergic to Peanuts") == [
        "allergic",
        "Peanuts",
    ]
    assert shared_words("any allergy?", "The user is allergic to peanuts") == ["allergic"]
    assert shared_words("What is the weather?", "The user is allergic to peanuts") == []


def test_reasons_read_as_a_person_says_them():
    told = explain(0.6, ["pinned", "lexical", "semantic"], "peanuts?", "Allergic to peanuts")
    assert told.strength == "strong"
    assert told.plain() == "pinned · mentions peanuts · similar in meaning"
    meaning_only = explain(0.1, ["semantic"], "snacks?", "Allergic to peanuts")
    assert (meaning_only.strength, meaning_only.plain()) == ("some", "similar in meaning")


PASSAGE = (
    "The handbook covers building A. Fire doors must stay closed.\n\n"
    "Parking is in lot 4. Visitors sign in at the desk.\n\n"
    "In building C, the emergency generator is serviced by Voltcraft Ltd every March. "
    "Call them at 555-0100."
)


def test_a_snippet_is_the_sentences_that_match_the_question():
    snippet = matching_sentences(PASSAGE, "Who services the emergency generator in C?", 240)
    assert snippet == (
        "… In building C, the emergency generator is serviced by Voltcraft Ltd every March. …"
    )
    # No word in common: the passage's opening, cut to the limit.
    opening = matching_sentences(PASSAGE, "zebra?", 40)
    assert opening.startswith("The handbook covers") and len(opening) <= 40
    assert opening.endswith("…")


def test_a_source_that_entered_without_a_match_tells_why_and_no_strength():
    # Pinned and not ranked: the 1.0 it carries measures no likeness to the question.
    pinned = explain(1.0, ["pinned"], "How do I reverse a list?", "The user's name is Ana")
    assert (pinned.strength, pinned.plain()) == ("", "pinned: in every answer's prompt")
    # A lasting fact brought because it bears on the kind of request.
    diet = explain(1.0, ["about your diet"], "What should I cook?", "The user is vegetarian")
    assert (diet.strength, diet.plain()) == ("", "about your diet")
    # Ranked as well: its match is told as usual.
    ranked = explain(0.5, ["lexical", "about your diet"], "vegetarian dinner?", "Vegetarian")
    assert ranked.strength == "strong"
    assert ranked.plain() == "mentions Vegetarian · about your diet"
