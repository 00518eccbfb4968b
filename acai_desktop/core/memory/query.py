"""Turning what the user typed into a safe full-text query.

User text never reaches FTS5's query parser as syntax: it is cut into word tokens, and
each token is passed as a double-quoted string, so ``AND``, ``NEAR(``, ``*``, ``"`` or
``-`` in a message are just words (or nothing). The tokens are OR-ed, so a memory that
shares any informative word is a candidate and BM25 ranks the ones sharing more and
rarer words first. Function words ("what", "did", "the") are dropped: they match
nearly everything and only add noise and work. Stemming happens inside the index
(the porter tokenizer of ``memories_fts``), which stems the quoted query words the
same way it stemmed the stored text, so "hiking" finds "hiked".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from acai_desktop.core.memory.relative_time import (
    TELLS_TIME,
    EventAnchor,
    event_anchors,
    relative_periods,
)
from acai_desktop.core.rules.words import MAX_QUERY_TERMS, stem, tokenize


def _words(text: str) -> list[str]:
    return text.split()


# English function words, question words and chat filler. Deliberately not a long
# "stop list" from IR folklore: content words such as "work", "home" or "first" stay.
STOP_WORDS = frozenset(
    _words(
        """
    a about above after again against all also am an and any are aren as at be because
    been before being below between both but by can cannot could couldn did didn do does
    doesn doing don down during each else ever few for from further get gets got had hadn
    has hasn have haven having he her here hers herself him himself his how i if in into
    is isn it its itself just let lets me might more most much must mustn my myself no
    nor not now of off on once only or other ought our ours ourselves out over own same
    shall shan she should shouldn so some such than that the their theirs them themselves
    then there these they this those through to too under until up upon us very was wasn
    we were weren what whats when whens where wheres whether which while who whom whos
    whose why will with won would wouldn you your yours yourself yourselves s t d ll m re
    ve y tell know think remember recall mention mentioned said say says ask asked
    kind sort ok okay oh hey hi hello yes yeah please thanks thank really
    """
    )
)

FIRST_PERSON = frozenset(_words("i me my mine myself"))

_MONTHS = _words(
    "january february march april may june july august september october november december"
)
_MONTH_ABBREVIATIONS = {month[:3]: month for month in _MONTHS}
_WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_MONTH_NAME = "(" + "|".join(_MONTHS) + ")"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH_NAME},?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH_NAME}\s+{_DAY},?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH_NAME},?\s+(\d{{4}})\b", re.I)


def content_terms(text: str) -> list[str]:
    """Distinct informative tokens of ``text`` in first-seen order (stop words dropped)."""
    seen: dict[str, None] = {}
    for token in tokenize(text):
        if token in STOP_WORDS or token in seen:
            continue
        # A single letter is never informative; a single digit may be ("3 kids").
        if len(token) == 1 and not token.isdigit():
            continue
        seen[token] = None
    return list(seen)


@functools.lru_cache(maxsize=4096)
def topic_stems(text: str) -> frozenset[str]:
    """What ``text`` is about, as light stems of its content terms ("race", "marathon"),
    the words that tell a time ("Wednesday", "week": relative_time.TELLS_TIME) left out:
    whether a message that says when is about what a "When did…" question asks (see
    retrieval's ``answer_time``). Cached by the text: the same messages come back
    search after search."""
    return frozenset(stem(term) for term in content_terms(text) if term not in TELLS_TIME)


def asked_topic(processed: ProcessedQuery) -> frozenset[str]:
    """What a question asks about (:func:`topic_stems`), the people it names left out:
    "Idris" in "When did Idris run the race?" is who, not what."""
    names = {stem(word) for name in processed.names for word in tokenize(name)}
    return topic_stems(processed.text) - names


def fts_match_expression(terms: list[str], conjunction: str = "OR") -> str | None:
    """An FTS5 MATCH expression joining every term, as a quoted string, with ``OR``
    (or ``AND``); None if there are no terms.

    Tokens come from :func:`tokenize`, so they hold no quote; doubling quotes anyway
    keeps this function safe on its own.
    """
    quoted = ['"' + term.replace('"', '""') + '"' for term in terms[:MAX_QUERY_TERMS]]
    if conjunction not in ("OR", "AND"):
        raise ValueError(f"conjunction must be OR or AND, not {conjunction!r}")
    return f" {conjunction} ".join(quoted) if quoted else None


def _capitalised_names(text: str) -> list[str]:
    """Capitalised words that don't start a sentence: likely names ("Melanie", "Paris")."""
    names: dict[str, None] = {}
    for sentence in re.split(r"[.!?\n]+", text):
        words = re.findall(r"[^\W\d_][\w'’-]*", sentence)
        for word in words[1:]:
            if word[0].isupper() and word.casefold() not in STOP_WORDS:
                names[word.split("'")[0].split("’")[0]] = None
    return list(names)


def _speakers(text: str, names: list[str]) -> list[str]:
    """The names among ``names`` the question asks about as the ones who spoke: in
    "What did Jon say about Gina's store?" Jon, not Gina, whose name only says whose
    store. A question whose every name is possessive ("What inspired Caroline's
    painting?") asks about them all."""
    owners = {match.casefold() for match in re.findall(r"\b([^\W\d_][\w-]*)['’]s\b", text)}
    speakers = [name for name in names if name.casefold() not in owners]
    return speakers or list(names)


# A question that asks for a time ("When did…", "How long ago…", "What year…"): its
# answer is in a message that says when (see retrieval's ``answer_time``).
_ASKS_WHEN = re.compile(
    r"^\W*(?:when\b|how long ago\b|(?:what|which)\s+(?:date|day|week|month|year)\b)", re.I
)


def asks_when(text: str) -> bool:
    """Whether ``text`` asks for a time: a sentence or clause of it ("So, when…") opens
    with "when", "how long ago" or "what/which date, day, week, month, year"."""
    return any(_ASKS_WHEN.match(part) for part in re.split(r"[.,;!?\n]+", text))


def _date_terms(terms: list[str]) -> list[str]:
    found = []
    for term in terms:
        if term in _MONTHS or term in _WEEKDAYS or _YEAR.fullmatch(term):
            found.append(term)
        elif term in _MONTH_ABBREVIATIONS:
            found.append(_MONTH_ABBREVIATIONS[term])
    return found


def mentioned_periods(text: str, today: date | None = None) -> list[tuple[str, str]]:
    """The days and months ``text`` names ("on 9 November, 2022", "May 3rd 2023", "in
    January 2024"), each as ``(first day, day after)`` ISO dates, in order; with
    ``today`` (when the question is asked), also the ones it names relative to it
    ("two weeks ago", "last Saturday", "in March": see :mod:`.relative_time`)."""
    periods: list[tuple[str, str]] = []
    taken = text
    for pattern, day_first in ((_DAY_MONTH_YEAR, True), (_MONTH_DAY_YEAR, False)):
        for match in pattern.finditer(text):
            day, month = (match[1], match[2]) if day_first else (match[2], match[1])
            month_number = _MONTHS.index(month.casefold()) + 1
            try:
                start = date(int(match[3]), month_number, int(day))
            except ValueError:
                continue  # "31 February"
            periods.append((start.isoformat(), (start + timedelta(days=1)).isoformat()))
            taken = taken.replace(match[0], " ")
    for match in _MONTH_YEAR.finditer(taken):
        year, month_number = int(match[2]), _MONTHS.index(match[1].casefold()) + 1
        following = date(year + month_number // 12, month_number % 12 + 1, 1)
        periods.append((date(year, month_number, 1).isoformat(), following.isoformat()))
        taken = taken.replace(match[0], " ")
    if today is not None:
        periods += [
            (start.isoformat(), end.isoformat()) for start, end in relative_periods(taken, today)
        ]
    return list(dict.fromkeys(periods))


@dataclass(frozen=True)
class ProcessedQuery:
    text: str
    terms: list[str] = field(default_factory=list)
    fts: str | None = None
    names: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    # True when the user asked about time ("when", "how long ago"): recency and dates
    # matter more than for "what is my dog called".
    temporal: bool = False
    # Days or months the query names, as [start, end) ISO dates (mentioned_periods).
    periods: list[tuple[str, str]] = field(default_factory=list)
    # The asker speaks of themselves ("what did I buy", "my sister"): what they wrote is
    # about them, as "What did Caroline paint?" is about what Caroline said.
    first_person: bool = False
    # Events it places its question before or after ("before I moved").
    anchors: list[EventAnchor] = field(default_factory=list)
    # The names it asks about as speakers (names but "Gina" in "what did Jon say about
    # Gina's store?"; see _speakers).
    speakers: list[str] = field(default_factory=list)
    # It asks for a time ("When did Melanie paint a sunrise?"; see asks_when).
    asks_when: bool = False


def process_query(text: str, today: date | None = None) -> ProcessedQuery:
    """``today``: the day the question is asked, which relative expressions ("last
    weekend", "three days ago") count from; None resolves none of them."""
    terms = content_terms(text)
    lowered = set(tokenize(text))
    names = _capitalised_names(text)
    return ProcessedQuery(
        text=text,
        terms=terms,
        fts=fts_match_expression(terms),
        names=names,
        dates=_date_terms(terms),
        temporal=bool(lowered & {"when", "date", "ago", "since", "year", "month", "week"}),
        periods=mentioned_periods(text, today),
        first_person=bool(lowered & FIRST_PERSON),
        anchors=event_anchors(text, content_terms),
        speakers=_speakers(text, names),
        asks_when=asks_when(text),
    )
