"""A small lexicon of the topics people search their memories by.

A search word such as "food" shares almost no meaning, as an embedding sees it, with
"The user is vegetarian" (WordLlama cosine 0.29) or "is allergic to peanuts" (0.1), yet
those are exactly what a person looking for "food" wants. Each topic lists the words
that invoke it, the extraction categories that belong to it, and the words its memories
use; the panel's search (:mod:`~acai_desktop.core.memory.panel_search`) matches those
words and categories beside the meaning of what was typed. General words only: a topic
is what any user's memories about it say, never one profile's facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    name: str
    triggers: frozenset[str]  # search words that mean this topic
    categories: frozenset[str]  # extraction categories of its memories (lower case)
    words: tuple[str, ...]  # words its memories use


def _topic(name: str, triggers: str, words: str, categories: str = "") -> Topic:
    return Topic(
        name,
        frozenset(triggers.split()),
        frozenset(categories.lower().split()),
        tuple(dict.fromkeys(words.split())),
    )


_DIET = (
    "vegetarian vegan pescatarian diet keto paleo halal kosher gluten celiac coeliac "
    "lactose dairy intolerant intolerance allergic allergy allergies peanuts nuts shellfish "
    "meat fish sugar"
)
_FAMILY = (
    "family wife husband partner spouse married children kids child son sons daughter "
    "daughters sister sisters brother brothers sibling siblings mother mom mum father dad "
    "parents grandmother grandfather grandma grandpa grandson granddaughter aunt uncle "
    "cousin niece nephew twins stepson stepdaughter fiance fiancee"
)

TOPICS: tuple[Topic, ...] = (
    _topic(
        "food",
        "food foods eat eating eats meal meals cuisine cooking cook dinner lunch breakfast "
        "dishes dish",
        _DIET + " food foods eat eats cooking cooks cook cuisine dish dishes meal meals "
        "recipe recipes restaurant dinner lunch breakfast curry pasta",
    ),
    _topic("diet", "diet dietary nutrition", _DIET),
    _topic(
        "allergies",
        "allergy allergies allergic intolerance intolerances",
        "allergic allergy allergies intolerant intolerance epipen hives anaphylaxis",
    ),
    _topic(
        "health",
        "health healthy medical condition conditions illness illnesses sick sickness doctor "
        "doctors medicine medicines medication medications wellbeing disease diseases",
        "health allergic allergy intolerant diabetes diabetic asthma condition chronic "
        "medication medicine doctor diagnosed disease migraine migraines pain therapy "
        "pressure cholesterol antidepressants surgery injury cancer celiac epilepsy adhd "
        "disorder",
        "health",
    ),
    _topic(
        "family",
        "family families relatives relative household",
        _FAMILY,
        "relationship",
    ),
    _topic(
        "children",
        "kids kid children child",
        "children kids kid child son sons daughter daughters baby toddler teenager "
        "preschool stepson stepdaughter",
    ),
    _topic(
        "partner",
        "partner spouse husband wife marriage",
        "partner spouse husband wife married girlfriend boyfriend fiance fiancee engaged",
    ),
    _topic("parents", "parents", "mother mom mum father dad parents stepmother stepfather"),
    _topic(
        "work",
        "work job jobs career employer employers employment profession occupation office "
        "workplace colleagues colleague boss",
        "work works working job career employer company hospital office manager boss "
        "colleague colleagues team shift shifts engineer nurse teacher freelance business "
        "clinic firm",
        "professional",
    ),
    _topic(
        "education",
        "education school schools study studies university college degree learning",
        "school university college degree studying student master's phd course preschool class",
    ),
    _topic(
        "pets",
        "pet pets animal animals",
        "dog dogs cat cats puppy kitten pet pets retriever rabbit hamster parrot horse",
    ),
    _topic(
        "home",
        "home house live lives living address location city town neighbourhood neighborhood",
        "lives live home house apartment flat rents moved city town neighbourhood neighborhood",
        "location",
    ),
    _topic(
        "music",
        "music songs song bands band",
        "music band bands guitar piano drums violin jazz song songs concert sing singing "
        "choir k-pop rock metal",
    ),
    _topic(
        "hobbies",
        "hobby hobbies interests pastime pastimes leisure",
        "loves enjoys hobby plays reads hiking painting guitar gardening cooking cooks "
        "runs running tennis games novels films",
    ),
    _topic(
        "sports",
        "sport sports exercise exercises fitness workout workouts training gym",
        "runs running tennis hiking gym marathon yoga swimming cycling bikes football "
        "basketball training lifting",
    ),
    _topic(
        "travel",
        "travel travels trip trips vacation vacations holiday holidays",
        "trip travel vacation holiday flight visit abroad",
    ),
    _topic("reading", "books book reading read", "reads books book novels novel reading author"),
    _topic(
        "films",
        "movies movie films film cinema tv shows",
        "films movies film movie cinema series horror comedy watches",
    ),
    _topic(
        "money",
        "money finances finance budget savings",
        "saving savings budget money mortgage salary debt",
    ),
    _topic("age", "age birthday born old", "years old birthday born age"),
    _topic(
        "languages",
        "language languages",
        "speaks speak language languages fluent spanish french japanese german english",
    ),
    _topic(
        "transport",
        "car cars vehicle commute commuting transport",
        "drives car bike bikes cycling train bus commute commutes",
    ),
    _topic(
        "drinks",
        "drink drinks beverage beverages",
        "coffee tea drinks drink alcohol beer wine juice",
    ),
    _topic(
        "computers",
        "computer computers tech technology software",
        "linux windows mac laptop computer software phone",
    ),
    _topic(
        "origins",
        "childhood origin origins background upbringing",
        "grew up raised born hometown childhood originally",
    ),
    _topic(
        "volunteering",
        "volunteering volunteer charity",
        "volunteers volunteer charity shelter nonprofit",
    ),
    _topic("eyesight", "eyesight vision eyes", "colorblind colourblind blind glasses eyesight"),
)

_SEARCH_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def search_words(text: str) -> list[str]:
    """The words of a search, folded."""
    return [word.casefold() for word in _SEARCH_WORD.findall(text)]


def topics_of(text: str) -> list[Topic]:
    """The topics a search names, in lexicon order."""
    words = set(search_words(text))
    return [topic for topic in TOPICS if words & topic.triggers]
