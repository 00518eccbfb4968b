"""Lasting facts about the user that bear on a kind of request although they share no
word with it: "The user is vegetarian" for "What should I cook tonight?", "The user
lives in Porto" for "Any good bakeries near me?".

Retrieval finds a memory by the words and the meaning it shares with the question, and
the relevance floor lets in only what it finds that way. Neither links a diet to a dinner:
WordLlama's cosine of "cook dinner tonight" with "The user is vegetarian" is 0.04, at the
level of unrelated facts. A person who was told "I'm vegetarian" remembers it whenever
food comes up; these rules do that for a few kinds of request and the facts that
constrain them (what the user can eat, where they live), and for a question about the
user themselves ("What do you know about me?") brings what is known, the most important
first. Each bearing is a pair of word lists: cues of the request, and the words of a
fact that bears on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acai_desktop.core.rules.slots import HOME
from acai_desktop.core.rules.user_subject import said_of_the_user


@dataclass(frozen=True)
class Bearing:
    name: str  # what the facts tell, as the answer's sources say it ("your diet")
    asked: re.Pattern[str]  # a request about it
    #: Full-text terms of a fact that may bear on it, space-separated; "" for every fact
    #: (the most important first).
    fact_terms: str
    fact: re.Pattern[str]  # a fact that does (checked on what the terms found)
    most: int = 3  # facts of this kind that go into one prompt


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)


# A diet said of the user, not of a thing ("vegan" in "is looking for vegan recipes"):
# no word follows but a joining one ("vegetarian and lives in Porto", "vegan since 2019").
_NO_NOUN_AFTER = (
    r"(?!\s+(?!(?:and|but|so|since|now|too|for|who|because|as|at|in|on|by|though)\b)\w)"
)


# What people are allergic to at table ("allergic to cats" bears on no recipe).
_FOODS = (
    r"(?:food|foods|peanuts?|nuts?|tree nuts|shellfish|seafood|fish|dairy|milk|eggs?|"
    r"gluten|wheat|soy|sesame|mustard|celery|lupin|strawberr\w+|kiwis?|tomato\w*|"
    r"garlic|onions?|chocolate)"
)


BEARINGS = (
    Bearing(
        "your diet",
        _words(
            r"cook\w*|dinner|lunch|breakfast|brunch|supper|meals?|recipes?|restaurants?|"
            r"eat|eating|food|foods|snacks?|menu|dish|dishes|bak(?:e|es|ed|ing|ery|eries)|"
            r"grocer\w*|caf[eé]s?|"
            r"desserts?|cuisine|potluck|barbecue|bbq|takeaway|takeout|dining|cater\w*|"
            r"sandwich\w*|salads?|soups?|pizza|pasta|cake|cakes|cookies|protein"
        ),
        """vegetarian vegan pescatarian allergic allergy allergies intolerant celiac
        coeliac gluten dairy lactose fructose kosher halal keto paleo diabetic diabetes diet
        eat eats drink avoid avoids caffeine alcohol sugar meat pork beef shellfish peanuts
        nuts sesame eggs""",
        said_of_the_user(
            being=rf"(?:vegetarian|vegan|pescatarian|keto|paleo|diabetic|celiac|coeliac)"
            rf"{_NO_NOUN_AFTER}|(?:lactose|gluten|fructose|dairy)[- ]intolerant|intolerant to|"
            r"(?:gluten|dairy|nut|sugar)[- ]free|"
            rf"allergic to (?:\w+ ){{0,3}}?{_FOODS}|on an? (?:\w+ )?diet",
            doing=rf"has (?:an? )?(?:\w+ )?{_FOODS} allerg\w*|"
            r"has (?:celiac|coeliac|diabetes|type [12] diabetes)|"
            r"follows an? (?:\w+ )?diet|keeps? (?:kosher|halal)|"
            r"eats? (?:only )?(?:kosher|halal|gluten-free|dairy-free|plant-based)|"
            r"(?:doesn't|does not|don't|do not|never|can't|cannot|no longer) "
            r"(?:eats?|drinks?|have)|"
            rf"avoids? (?:\w+ ){{0,2}}?(?:{_FOODS}|meat|pork|beef|caffeine|sugar|alcohol|"
            r"sweeteners|fruit|carbs)",
        ),
    ),
    Bearing(
        "where you live",
        _words(
            r"near me|nearby|around here|in my area|in my city|in town|weather|"
            r"neighbou?rhood"
        ),
        HOME.terms,
        HOME.fact,
    ),
    # "What do you know about me?" shares no word with any fact, so nothing matched it
    # and the answer was "nothing", however much was remembered.
    ABOUT_YOU := Bearing(
        "you",
        _words(
            r"(?:know|remember|recall|learned|learnt|stored|saved|kept|noted)\s+(?:\w+\s+){0,2}?"
            r"about (?:me|myself)|who am i|tell me about (?:me|myself)|"
            r"what (?:have|did) i (?:tell|told) you"
        ),
        "",
        re.compile(r"\S"),
        most=10,
    ),
)


# The words a question about the user may have beside the bearing's own ("What else do
# you know about me?", "So, who am I?"); any other word asks something more ("Given what
# you know about me, what should I cook?").
_ONLY_ASKING_WORDS = """what whats what's do does did can could would will you have has all
    everything else exactly already really actually so now then ok okay hey hi please tell me i
    much how anything something yet currently right well"""
_ONLY_ASKING = frozenset(_ONLY_ASKING_WORDS.split())


def asks_what_is_known(message: str) -> bool:
    """Whether ``message`` asks only what is known about the user ("What do you know
    about me?", "Who am I?", "What do you remember about me?"): the same cues as the
    question's bearing, with nothing else asked."""
    found = ABOUT_YOU.asked.search(message)
    if found is None:
        return False
    rest = message[: found.start()] + " " + message[found.end() :]
    return all(
        word in _ONLY_ASKING for word in re.findall(r"[a-z']+", rest.lower().replace("’", "'"))
    )


def bearings_of(question: str) -> list[Bearing]:
    """The kinds of request ``question`` is (often none)."""
    return [bearing for bearing in BEARINGS if bearing.asked.search(question)]


def bears_on(fact: str, bearing: Bearing) -> bool:
    """Whether the fact ``fact`` (a memory's text) constrains requests of ``bearing``:
    it says of the user themselves what ``bearing`` needs. A learned fact's subject is
    "The user" (processors name it so), a note's "I"; "The user's sister is vegan" and
    "My sister lives in Lisbon" are about someone else."""
    return bool(bearing.fact.search(fact.strip()))
