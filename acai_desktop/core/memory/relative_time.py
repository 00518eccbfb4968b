"""Time a question names relative to the day it is asked, resolved without a model.

"What did I cook a couple of days ago?", "Who did I go with last Saturday?", "the
workshop four weeks ago", "how many plants did I buy in the last month?", "the games I
watched in January": each names a window of days counted from *today* (in the app the
day the question is asked; in the evaluation the dataset's question date). Retrieval
prefers messages written in that window (see ``RetrievalWeights.on_date``).

A window is generous where people are vague: "two weeks ago" is the week around the
day two weeks back, "last month" also covers the weeks since (people say it of "the
past month"). "How many days ago…" names no window: it asks for one. "Before I moved" names one
relative to an event, found in what was said (:func:`event_anchors`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

Period = tuple[date, date]  # [first day, day after the last)

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
}
_COUNT = r"(\d{1,3}|" + "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(day|week|month|year)s?"
_AGO = re.compile(rf"\b{_COUNT}\s+{_UNIT}\s+ago\b", re.I)
_LAST_SPAN = re.compile(rf"\b(?:past|last|previous)\s+{_COUNT}\s+{_UNIT}\b", re.I)
_LAST_UNIT = re.compile(r"\b(?:past|last|previous)\s+(week|month|year)\b", re.I)
_THIS_UNIT = re.compile(r"\bthis\s+(week|month)\b", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_LAST_WEEKDAY = re.compile(
    r"\b(?:last|this past|past|previous)\s+(" + "|".join(_WEEKDAYS) + r")\b", re.I
)
_WEEKEND = re.compile(r"\b(?:last|this past|past|previous|over the)\s+weekend\b", re.I)
_YESTERDAY = re.compile(r"\byesterday\b", re.I)
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
# A month named without a year: after a word that makes it a time ("in March", "early
# June", "since May"), so that "may" the verb and "march" the walk are left alone.
_MONTH_ALONE = re.compile(
    r"\b(in|during|of|early|late|mid|since|this|last|past)[\s-]+(" + "|".join(_MONTHS) + r")\b"
    r"(?!,?\s+\d)",
    re.I,
)
# How far either side of "N units ago" the window reaches, in days.
_SLACK_DAYS = {"day": 1, "week": 4, "month": 15, "year": 183}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def _count(word: str) -> int:
    word = " ".join(word.casefold().split())
    return int(word) if word.isdigit() else _NUMBERS[word]


def _month_start(day: date, back: int = 0) -> date:
    index = day.year * 12 + day.month - 1 - back
    return date(index // 12, index % 12 + 1, 1)


def relative_periods(text: str, today: date) -> list[Period]:
    """The windows ``text`` names relative to ``today``, in the order found."""
    found: list[tuple[int, Period]] = []
    tomorrow = today + timedelta(days=1)
    for match in _AGO.finditer(text):
        unit = match[2].casefold()
        centre = today - timedelta(days=_count(match[1]) * _UNIT_DAYS[unit])
        slack = timedelta(days=_SLACK_DAYS[unit])
        found.append((match.start(), (centre - slack, centre + slack + timedelta(days=1))))
    for match in _LAST_SPAN.finditer(text):
        span = _count(match[1]) * _UNIT_DAYS[match[2].casefold()]
        found.append((match.start(), (today - timedelta(days=span), tomorrow)))
    for match in _LAST_UNIT.finditer(text):
        unit = match[1].casefold()
        if unit == "week":
            start = today - timedelta(days=today.weekday() + 7)
        elif unit == "month":
            start = _month_start(today, 1)
        else:
            start = date(today.year - 1, 1, 1)
        found.append((match.start(), (start, tomorrow)))
    for match in _THIS_UNIT.finditer(text):
        if match[1].casefold() == "week":
            start = today - timedelta(days=today.weekday())
        else:
            start = _month_start(today)
        found.append((match.start(), (start, tomorrow)))
    for match in _LAST_WEEKDAY.finditer(text):
        weekday = _WEEKDAYS.index(match[1].casefold())
        back = (today.weekday() - weekday) % 7 or 7
        day = today - timedelta(days=back)
        found.append((match.start(), (day, day + timedelta(days=1))))
    for match in _WEEKEND.finditer(text):
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        if saturday + timedelta(days=2) > today:  # this weekend is not over yet
            saturday -= timedelta(days=7)
        found.append((match.start(), (saturday, saturday + timedelta(days=2))))
    for match in _YESTERDAY.finditer(text):
        found.append((match.start(), (today - timedelta(days=1), today)))
    for match in _MONTH_ALONE.finditer(text):
        month = _MONTHS.index(match[2].casefold()) + 1
        year = today.year if month <= today.month else today.year - 1
        start = date(year, month, 1)
        end = _month_start(date(year, month, 28), -1)
        if match[1].casefold() == "since":
            end = tomorrow
        found.append((match.start(), (start, end)))
    return [period for _, period in sorted(found, key=lambda item: item[0])]


@dataclass(frozen=True)
class EventAnchor:
    """A window named by an event rather than a date: "before I moved", "since I started
    taking ukulele lessons", "after the road trip". It lies on one ``side`` ("before"
    or "after") of the day the event was told; retrieval finds that day as the day of
    the message that best tells the event (its ``words``) and prefers messages on
    that side (see ``RetrievalWeights.event_window``)."""

    side: str
    words: tuple[str, ...]


# The clause after the preposition: a subject or an event noun phrase ("I moved",
# "getting the Air Fryer", "the accident"), up to the end of the clause.
_EVENT = re.compile(
    r"\b(before|after|since|prior to)\s+"
    r"((?:i|we|my|our|the|getting|starting|moving|buying|finishing)\b[^,.;:?!\"]*)",
    re.I,
)
_CLAUSE_END = re.compile(r"\s+(?:when|and|but|while|so|or|did|do|was|were)\b.*$", re.I)
_EVENT_MAX_WORDS = 8
_SIDES = {"before": "before", "prior to": "before", "after": "after", "since": "after"}


def event_anchors(text: str, content_terms: Callable[[str], list[str]]) -> list[EventAnchor]:
    """The events ``text`` places its question before or after, with the informative
    words (``content_terms``) that tell each; an event named by a date or a span
    ("since May", "after two weeks") is a period, not an anchor."""
    anchors = []
    for match in _EVENT.finditer(text):
        clause = _CLAUSE_END.sub("", match[2])
        words = [
            word
            for word in content_terms(" ".join(clause.split()[:_EVENT_MAX_WORDS]))
            if not any(letter.isdigit() for letter in word) and word not in _TIME_WORDS
        ]
        if words:
            anchors.append(EventAnchor(_SIDES[" ".join(match[1].casefold().split())], tuple(words)))
    return anchors


_TIME_WORDS = frozenset(
    (
        *_WEEKDAYS,
        *_MONTHS,
        *["day", "days", "week", "weeks", "month", "months", "year", "years", "weekend"],
        *["today", "yesterday", "tomorrow", "morning", "evening", "night", "last", "next"],
    )
)


# Words by which a message says when something happens or happened ("I went there
# yesterday", "last week", "in May"): the answer a "when" question needs.
TELLS_TIME = _TIME_WORDS | frozenset(("ago", "tonight", "recently", "soon", "earlier", "later"))


_WORD = re.compile(r"[^\W_]+")


@functools.lru_cache(maxsize=4096)
def holds_time(text: str) -> bool:
    """Whether ``text`` holds a word of :data:`TELLS_TIME` (all ASCII, so a case fold
    is normalisation enough). Cached by the text: the same messages come back search
    after search; a "when" question checks each of its candidates (a few hundred)."""
    return not TELLS_TIME.isdisjoint(_WORD.findall(text.casefold()))
