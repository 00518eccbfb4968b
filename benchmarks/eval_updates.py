"""``eval updates``: what staleness costs, with and without the Review (issue 43, item 1).

Each line of the file is a fact the user told the assistant on ``learned`` and, when
``changed`` is set, stopped being true that day (they moved, changed jobs, the trip
happened) without telling it. The facts go into a real store, learned on their dates;
then the weeks pass, on a test clock, to a year after the last date:

* *without review*, nobody answers the Review;
* *with review*, each week the user answers what the app's Review asks
  (``FactReview.due``: past its lifetime, oldest first, a few a week), truthfully: *No
  longer true* when the fact has changed by then, else *Still true*.

At the start of every fourth week it counts, over the active facts: the **stale-memory
rate** (the share no longer true) and the share of those stale facts that the prompt
would quote **unmarked** (not yet past their lifetime, so with no "as of"). Before this
issue, every stale fact went into prompts unmarked and stayed.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.fact_ages import Lifetimes, is_stale
from acai_desktop.core.memory.fact_review import FactAges, FactReview
from acai_desktop.core.memory.front_door import memory_on
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.store.store_url import open_store

WEEK = timedelta(days=7)
#: Measured every this many weeks.
EVERY = 4


@dataclass(frozen=True)
class Timeline:
    fact: str
    category: str
    learned: date
    changed: date | None


def read_timelines(path: Path) -> list[Timeline]:
    timelines = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            changed = item.get("changed")
            timelines.append(
                Timeline(
                    item["fact"],
                    item["category"],
                    date.fromisoformat(item["learned"]),
                    date.fromisoformat(changed) if changed else None,
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            raise InvalidInputError(f"{path} line {number}: {error}") from None
    if not timelines:
        raise InvalidInputError(f"{path} holds no fact.")
    return timelines


def _at(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


async def simulate(timelines: list[Timeline], embedder, *, review: bool) -> dict:
    """One run over the weeks (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="acai-updates-") as folder:
        path = Path(folder) / "acai.sqlite3"
        store = await open_store(path)
        try:
            memory = await memory_on(store, embedder, EventBus())
            truth = {}
            for timeline in timelines:
                item = await memory.remember(
                    timeline.fact, category=timeline.category, explicit=True
                )
                truth[item.id] = timeline
            with sqlite3.connect(path) as db:  # each learned on its day
                db.executemany(
                    "UPDATE memories SET created_at = ? WHERE id = ?",
                    [(_at(t.learned).isoformat(), i) for i, t in truth.items()],
                )
            return await _weeks(memory, truth, review)
        finally:
            await store.close()


async def _weeks(memory, truth: dict[int, Timeline], review: bool) -> dict:
    start = min(t.learned for t in truth.values())
    end = max(max(t.learned, t.changed or t.learned) for t in truth.values()) + timedelta(365)
    clock = _Clock(_at(start))
    fact_review = FactReview(memory, FactAges(), clock)
    rules = Lifetimes()
    rates, unmarked, asked, retired, weeks = [], [], 0, 0, 0
    while clock.now.date() <= end:
        if review:
            for item in await fact_review.due():
                asked += 1
                changed = truth[item.id].changed
                if changed is not None and changed <= clock.now.date():
                    await fact_review.retire(item.id)
                    retired += 1
                else:
                    await fact_review.confirm(item.id)
        if weeks % EVERY == 0:
            today = clock.now.date()
            active = [
                m
                for m in await memory.list(
                    MemoryFilter(kinds=[MemoryKind.FACT], statuses=["active"])
                )
                if truth[m.id].learned <= today
            ]
            stale = [m for m in active if (c := truth[m.id].changed) is not None and c <= today]
            if active:
                rates.append(len(stale) / len(active))
            if stale:
                unmarked.append(sum(not is_stale(m, clock.now, rules) for m in stale) / len(stale))
        clock.now += WEEK
        weeks += 1
    return {
        "stale_rate": round(sum(rates) / len(rates), 4),
        "stale_unmarked": round(sum(unmarked) / len(unmarked), 4) if unmarked else 0.0,
        "asked_per_week": round(asked / weeks, 3),
        "retired": retired,
        "weeks": weeks,
    }


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def evaluate(path: Path, embedder) -> dict:
    timelines = read_timelines(path)
    return {
        "facts": len(timelines),
        "changed": sum(t.changed is not None for t in timelines),
        "without_review": await simulate(timelines, embedder, review=False),
        "with_review": await simulate(timelines, embedder, review=True),
    }


def format_report(report: dict) -> str:
    lines = [
        f"{report['facts']} facts, {report['changed']} of them changed without a word",
        f"{'':16} {'stale rate':>10} {'stale unmarked':>15} {'asked/week':>11} {'retired':>8}",
    ]
    for name in ("without_review", "with_review"):
        run = report[name]
        lines.append(
            f"{name.replace('_', ' '):16} {run['stale_rate']:>10.3f} "
            f"{run['stale_unmarked']:>15.3f} {run['asked_per_week']:>11.2f} {run['retired']:>8}"
        )
    return "\n".join(lines)
