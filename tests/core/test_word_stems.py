"""One stemming rule (``rules.words.stem``) for what the user says and what the built-in
rules write of it: every ending the rules put on a verb comes off again."""

import pytest

from acai_desktop.core.memory.query import topic_stems
from acai_desktop.core.rules.user_subject import about_the_user
from acai_desktop.core.rules.words import stem

VERBS = [
    "live",
    "love",
    "go",
    "study",
    "fix",
    "watch",
    "play",
    "make",
    "use",
    "move",
    "run",
    "agree",
    "see",
    "try",
    "carry",
    "hike",
    "bake",
    "cook",
    "teach",
    "wash",
    "buy",
    "pay",
    "enjoy",
    "hate",
    "like",
    "prefer",
    "own",
    "speak",
    "write",
    "drive",
    "ride",
    "miss",
    "dance",
]


@pytest.mark.parametrize("verb", VERBS)
def test_the_rules_third_person_has_the_stem_of_the_users_verb(verb):
    written = about_the_user(f"I {verb} jazz")
    assert written is not None
    # What "Forget that I ... jazz" looks for is all in what the rules wrote.
    assert topic_stems(f"I {verb} jazz") <= topic_stems(written)


@pytest.mark.parametrize(
    ("words", "same"),
    [
        (("live", "lives", "lived", "living"), "liv"),
        (("nurse", "nurses", "nursing"), "nurs"),
        (("study", "studies", "studied", "studying"), "study"),
        (("tree", "trees"), "tree"),
        (("class", "classes"), "class"),
        (("hero", "heroes"), "hero"),
    ],
)
def test_inflections_share_one_stem(words, same):
    assert {stem(word) for word in words} == {same}
