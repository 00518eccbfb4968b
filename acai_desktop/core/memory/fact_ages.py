"""Facts that age (issue 43, item 1): how long a fact is worth believing without asking.

Jobs, addresses, diets, relationships and plans go stale; a name or an allergy does not.
Each fact is "as of" the last time it was said or confirmed (``MemoryItem.said_at``: a
restatement in chat reinforces it, the user's *Still true* or edit confirms it). Its
lifetime comes from these rules, in order:

1. words that never age: an allergy, a birthday, a name ("allergic", "born", "name is");
2. words that do: a diet ("vegetarian", "vegan", "diet") — a year;
3. a plan (category Plan) lasts until the date it names ("in April", "on 3 May",
   "2027-01-15"; the day after it), else :data:`PLAN_DAYS` from when it was said;
4. its category: Professional, Location, Relationship, Preference — a year; Personal,
   Health, Other — never.

The user edits the category lifetimes in ``fact-lifetimes.json`` in the profile's folder
(``{"categories": {"Preference": 730, "Health": null}}``: days, or null for never); a
file that can't be read is said and the rules above hold.

A fact past its lifetime is still used, marked in the prompt "as of <month year>", so
the answer can hedge ("last I knew, you lived in Lisbon"); the memory panel's Review
lists the due ones, oldest first, at most :data:`REVIEWS_PER_WEEK` a week.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus

FILE_NAME = "fact-lifetimes.json"
YEAR = 365
#: A plan that names no date is worth asking about after this many days.
PLAN_DAYS = 90
#: The most facts the Review asks about in any seven days: a few, never a nag.
REVIEWS_PER_WEEK = 5

CATEGORY_DAYS: dict[str, int | None] = {
    "professional": YEAR,
    "location": YEAR,
    "relationship": YEAR,
    "preference": YEAR,
    "personal": None,
    "health": None,
    "other": None,
}
_NEVER = re.compile(r"\ballerg|\bborn\b|\bbirthday\b|\bname is\b", re.I)
_DIET = re.compile(r"\bvegetarian|\bvegan|\bpescatarian|\bdiet\b|\bkosher\b|\bhalal\b", re.I)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+(\d{{4}}))?", re.I
)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.I)
_MONTH_ONLY = re.compile(rf"\b{_MONTH}\b(?:\s+(\d{{4}}))?", re.I)


@dataclass(frozen=True)
class Lifetimes:
    """The category lifetimes in days (None: never), the user's over the defaults."""

    categories: dict[str, int | None] = field(default_factory=lambda: dict(CATEGORY_DAYS))

    def days_for(self, memory: MemoryItem) -> int | None:
        if _NEVER.search(memory.content):
            return None
        if _DIET.search(memory.content):
            return YEAR
        return self.categories.get((memory.category or "other").lower())


def load_lifetimes(data_dir: Path) -> tuple[Lifetimes, list[str]]:
    """The rules with the user's lifetimes from ``fact-lifetimes.json``, and what was
    wrong with the file (sentences)."""
    try:
        data = json.loads((data_dir / FILE_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Lifetimes(), []
    except (OSError, ValueError) as error:
        return Lifetimes(), [f"{FILE_NAME} can't be read ({error}); the usual lifetimes hold."]
    given = data.get("categories") if isinstance(data, dict) else None
    if not isinstance(given, dict):
        return Lifetimes(), [f'{FILE_NAME} needs a "categories" object; the usual lifetimes hold.']
    categories, problems = dict(CATEGORY_DAYS), []
    for name, days in given.items():
        if days is None or (isinstance(days, int) and not isinstance(days, bool) and days > 0):
            categories[str(name).lower()] = days
        else:
            problems.append(
                f"{FILE_NAME}: {name!r} is left out: days must be a whole number or null."
            )
    return Lifetimes(categories), problems


def expires_at(memory: MemoryItem, rules: Lifetimes) -> datetime | None:
    """When ``memory`` stops being worth believing unasked (None: never; only facts age)."""
    if memory.kind is not MemoryKind.FACT:
        return None
    said = parse_utc(memory.said_at)
    if (memory.category or "").lower() == "plan" and not _NEVER.search(memory.content):
        named = date_named(memory.content, said.date())
        if named is not None:
            return datetime.combine(named + timedelta(days=1), said.timetz())
        return said + timedelta(days=PLAN_DAYS)
    days = rules.days_for(memory)
    return None if days is None else said + timedelta(days=days)


def is_stale(memory: MemoryItem, now: datetime, rules: Lifetimes) -> bool:
    """Past its lifetime at ``now``: still used, but said to be "as of" its date."""
    expiry = expires_at(memory, rules)
    return expiry is not None and now >= expiry


def as_of_text(memory: MemoryItem) -> str:
    """The prompt's mark of a stale fact: "as of March 2025"."""
    return f"as of {parse_utc(memory.said_at).strftime('%B %Y')}"


def due_for_review(
    memories: list[MemoryItem], now: datetime, rules: Lifetimes, answered_this_week: int
) -> list[MemoryItem]:
    """The stale active facts, oldest said first, as many as the week still allows (a
    conflict waits for the user's own decision, not for this question)."""
    due = [m for m in memories if m.status is MemoryStatus.ACTIVE and is_stale(m, now, rules)]
    due.sort(key=lambda m: (parse_utc(m.said_at), m.id))
    return due[: max(0, REVIEWS_PER_WEEK - answered_this_week)]


def date_named(text: str, said: date) -> date | None:
    """The date a plan names, the next of its kind after ``said`` when it names no year
    (a month alone: that month's last day); None when it names none."""
    if match := _ISO_DATE.search(text):
        try:
            return date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return None
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        if match := pattern.search(text):
            return _next_date(
                said, _MONTHS[match[month_group].lower()], int(match[day_group]), match[3]
            )
    if match := _MONTH_ONLY.search(text):
        month = _MONTHS[match[1].lower()]
        if month == 5 and not re.search(r"\b(?:in|by|until|from)\s+may\b", text, re.I):
            return None  # "may" is mostly a verb
        return _next_date(said, month, None, match[2])
    return None


def _next_date(said: date, month: int, day: int | None, year: str | None) -> date | None:
    years = [int(year)] if year else [said.year, said.year + 1]
    for candidate_year in years:
        last = (date(candidate_year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
        if day is not None and not 1 <= day <= last:
            return None
        candidate = date(candidate_year, month, day or last)
        if year or candidate >= said:
            return candidate
    return None
