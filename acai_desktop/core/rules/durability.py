"""Whether a fact about the user lasts: who they are, or how they are today.

Lasting from the first mention: identity (name, age, birthday, pronouns, origins, faith,
disability), health (allergies, conditions, diet, medication), family and relationships
(partner, children, parents, siblings, pets), home, work and study, long-term
preferences, routines and commitments. Passing: moods, today's plans, the weather, what
is happening right now.

Two sources of evidence, the text first:

* *passing* cues in the text win: a time that is now or soon ("today", "tonight",
  "this weekend", "in ten minutes", "on Monday"), a mood or a momentary state
  ("is tired", "feels anxious", "in a bad mood"), the weather. "The user's sister is
  visiting tonight" is about the sister, but it is over tomorrow.
* otherwise *lasting* cues in the text (an allergy, a diet, a partner, a job, a home,
  "always", "every Sunday", "for ten years", "committed to", a plan months ahead: "in
  May", "next year") or the extractor's category
  (Personal, Professional, Relationship, Health, Location, Preference) make it lasting;
* what is left (a Plan or Other fact without cues) is *neutral*: kept temporary until it
  comes up again.

Cues are whole words or short phrases, not a model: they are easy to read, to test and
to correct, and they were tuned on two thirds of the labelled statements of
``benchmarks/data/policy_statements.jsonl`` and checked on the other third
(``python -m benchmarks eval policy``).
"""

from __future__ import annotations

import re
from enum import StrEnum


class Durability(StrEnum):
    LASTING = "lasting"
    NEUTRAL = "neutral"
    PASSING = "passing"


#: The extraction categories whose facts last unless the text says otherwise.
LASTING_CATEGORIES = frozenset(
    {"personal", "professional", "relationship", "health", "location", "preference"}
)

_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_COUNT = (
    r"(?:(?:about|over|almost|nearly|around) )?"
    r"(?:\d+|a|an|one|two|three|five|ten|fifteen|twenty|thirty|forty|a few|a couple of)"
)
_INTENSITY = r"(?:(?:so|really|very|super|a bit|a little|kinda|kind of|pretty|quite|still)\s+)*"
_MOODS = (
    "tired|sleepy|bored|hungry|starving|hungover|anxious|nervous|stressed|annoyed|furious|"
    "angry|upset|sad|lonely|excited|relieved|overwhelmed|groggy|exhausted|wiped out|"
    "sunburnt|sunburned|proud|nostalgic|cranky|grumpy|restless|sore|stuck|procrastinating|"
    "swamped|glad"
)

_PASSING = re.compile(
    "|".join(
        (
            # now, soon, or just past
            r"\b(?:today|tonight|tomorrow|yesterday|last night|right now|at the moment|"
            r"as we speak|this (?:morning|afternoon|evening|week|weekend)|later today|"
            r"in a bit|in a minute|for the rest of the day)\b",
            rf"\b(?:on|this|next) (?:{_DAYS})\b",
            rf"\bin {_COUNT} (?:minutes?|mins?|hours?)\b",
            rf"\bfor {_COUNT} (?:minutes?|mins?|hours?)\b",
            r"\b\d+ minutes\b",
            r"\babout to\b",
            r"\b(?:off to|on (?:my|their|his|her) way|heading (?:out|off|to|home))\b",
            r"\b(?:rough|long|bad|lazy|busy) (?:day|night|morning)\b",
            # a mood or a momentary state
            rf"\b(?:is|am|are|i'm|im|feels?|feeling|felt|was|got|gets)\s+{_INTENSITY}(?:{_MOODS})\b",
            r"\b(?:good|bad|great|weird|foul|terrible) mood\b",
            # where the user is this moment ("I'm home", "just got home")
            r"\b(?:is|am|i'm|im|are|got|gets|getting|back) (?:at )?home\b",
            r"\b(?:headache|hangover)\b",
            # the weather
            r"\b(?:weather|raining|rained|snowing|snowed|sunny|thunderstorm|windy|"
            r"heatwave|sunset|rainbow|umbrella)\b",
        )
    ),
    re.IGNORECASE,
)

#: Lasting cues by the extraction category they tell (None: a cue of no one topic).
_LASTING_BY_TOPIC: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    (
        "Personal",  # identity
        (
            r"\b(?:name|named|called|born|birthday|years? old|pronouns|originally from|"
            r"hometown|grew up|raised|native|citizen|veteran|religion|catholic|jewish|muslim|"
            r"christian|hindu|buddhist|atheist|transgender|gay|lesbian|bisexual|introvert|"
            r"extrovert|left-handed|right-handed|speaks|fluent\w*)\b",
        ),
    ),
    (
        "Health",  # health and diet
        (
            r"\b(?:allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|halal|kosher|keto|"
            r"gluten|celiac|coeliac|diabet\w*|asthma|chronic|medication|diagnos\w*|disease|"
            r"disorder|condition|cancer|remission|sober|epilep\w*|adhd|autis\w*|deaf|blind|"
            r"colou?rblind|wheelchair|pregnant|diet|migraines?|cholesterol|blood pressure|"
            r"dementia|therapy|antidepressants|epipen|hard of hearing|disabilit\w*)\b",
            r"\b(?:don't|doesn't|does not|do not|can't|cannot|can not) (?:eat|drink|have|smoke)\b",
        ),
    ),
    (
        "Relationship",  # family and relationships
        (
            r"\b(?:wife|husband|partner|girlfriend|boyfriend|fianc\w*|spouse|married|engaged|"
            r"divorced|widow\w*|kids?|children|child|sons?|daughters?|twins?|sisters?|"
            r"brothers?|siblings?|mother|mom|mum|father|dad|parents|grand\w*|aunt|uncle|"
            r"niece|nephew|cousin|step\w+|in-laws?|\w+-in-law|best friend|adopt\w*|"
            r"dogs?|cats?|pups?|pupp(?:y|ies)|kittens?|pets?)\b",
        ),
    ),
    (
        "Location",  # home
        (
            r"\b(?:lives?|living|lived|moved to|relocated|based in|house|home|apartment|flat|"
            r"rents?|neighbou?rhood|commutes?)\b",
        ),
    ),
    (
        "Professional",  # work and study
        (
            r"\b(?:works?|worked|job|employer|employed|career|profession|occupation|retired|"
            r"company|business|owns?|runs|founder|founded|manages|team|colleagues?|"
            r"engineer|nurse|teacher|teaches|doctor|lawyer|chef|student|studying|studies|"
            r"degree|phd|master'?s|university|college|school|shifts?|freelance\w*|"
            r"volunteers?|laid off|between jobs)\b",
            r"\b(?:promoted|graduated|training to become|works? as|working (?:as|for|at))\b",
        ),
    ),
    (
        "Preference",  # long-term preferences, routines, commitments
        (
            r"\b(?:always|never|usually|rarely|often|regularly|every|each|weekly|monthly|daily|"
            r"lifelong|whole life|long-term|favou?rite|prefers?|preferred|loves?|hates?|"
            r"dislikes?|can't stand|cannot stand|avoids?|fan of|into|obsessed|believer|"
            r"committed|commitment|promised|goal|saving|training for|learning)\b",
        ),
    ),
    (
        None,
        (
            rf"\bfor {_COUNT} (?:years?|decades?)\b",
            # a plan months ahead ("visit Rome in May") outlives today's plans
            rf"\b(?:in|by|until|next|this coming) (?:{_MONTHS}|spring|summer|autumn|fall|"
            r"winter|the (?:spring|summer|autumn|fall|winter)|year|month)\b",
            # "The user is a nurse", "I'm an engineer": what someone is, not how they feel
            r"\b(?:is|am|i'm|im) an? (?!bit\b|little\b|lot\b)",
            r"\bsince (?:\d{4}|childhood|college|school)\b",
        ),
    ),
)

_LASTING = re.compile("|".join(cue for _, cues in _LASTING_BY_TOPIC for cue in cues), re.IGNORECASE)
_TOPIC_CUES = tuple(
    (topic, re.compile("|".join(cues), re.IGNORECASE))
    for topic, cues in _LASTING_BY_TOPIC
    if topic is not None
)


def durability_of(text: str, category: str | None = None) -> Durability:
    """How long ``text`` (a fact, or a user's note) stays true (see the module docstring)."""
    if _PASSING.search(text):
        return Durability.PASSING
    if _LASTING.search(text) or (category or "").strip().lower() in LASTING_CATEGORIES:
        return Durability.LASTING
    return Durability.NEUTRAL


def lasting_topic(text: str) -> str | None:
    """The extraction category of the first lasting cue in ``text`` ("Health" for an
    allergy), in the order identity, health, family, home, work, preferences; None
    when no cue names a topic."""
    for topic, cues in _TOPIC_CUES:
        if cues.search(text):
            return topic
    return None
