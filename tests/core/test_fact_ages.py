"""Facts that age (issue 43, item 1), with a test clock: lifetimes by kind, the Review
queue (oldest first, a few a week), Still true / No longer true, a restatement in chat,
and the prompt's "as of" mark for a fact past its lifetime."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

from acai_desktop.core.memory.fact_ages import (
    FILE_NAME,
    REVIEWS_PER_WEEK,
    Lifetimes,
    date_named,
    expires_at,
    load_lifetimes,
)
from acai_desktop.core.memory.fact_review import FactAges, FactReview
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus, Origin
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.memory import memory_services

LEARNED = "2025-01-10T09:00:00+00:00"
SAID = datetime(2025, 1, 10, 9, tzinfo=UTC)


def _fact(content: str, category: str | None, *, said: str = LEARNED) -> MemoryItem:
    return MemoryItem(1, MemoryKind.FACT, content, Origin.USER, said, said, category=category)


def test_a_job_ages_in_a_year_a_name_or_an_allergy_never_and_a_plan_at_its_date():
    rules = Lifetimes()
    year = SAID + timedelta(days=365)
    assert expires_at(_fact("The user works as a nurse", "Professional"), rules) == year
    assert expires_at(_fact("The user lives in Lisbon", "Location"), rules) == year
    assert expires_at(_fact("The user is vegetarian", "Health"), rules) == year  # a diet
    assert expires_at(_fact("The user's name is Marta", "Personal"), rules) is None
    assert expires_at(_fact("The user is allergic to peanuts", "Health"), rules) is None
    plan = _fact("The user plans to visit Japan in April", "Plan")
    assert expires_at(plan, rules) == datetime(2025, 5, 1, 9, tzinfo=UTC)  # April's end
    vague = _fact("The user plans to run a marathon", "Plan")
    assert expires_at(vague, rules) == SAID + timedelta(days=90)
    note = MemoryItem(2, MemoryKind.NOTE, "Lisbon trip", Origin.USER, LEARNED, LEARNED)
    assert expires_at(note, rules) is None  # only facts age


def test_the_dates_a_plan_names():
    said = date(2026, 12, 7)
    assert date_named("flies to Lisbon on 3 May", said) == date(2027, 5, 3)
    assert date_named("an exam on March 14, 2027", said) == date(2027, 3, 14)
    assert date_named("moves on 2027-01-15", said) == date(2027, 1, 15)
    assert date_named("a party on December 20", said) == date(2026, 12, 20)
    assert date_named("The user may move", said) is None  # "may" the verb
    assert date_named("a trip on 31 February", said) is None


def test_the_user_edits_the_lifetimes_and_a_bad_file_is_said(tmp_path):
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"categories": {"Preference": 730, "Health": 30, "Location": "soon"}})
    )
    rules, (problem,) = load_lifetimes(tmp_path)
    assert "'Location' is left out" in problem
    assert rules.days_for(_fact("The user prefers tea", "Preference")) == 730
    assert rules.days_for(_fact("The user has a cold", "Health")) == 30
    assert rules.days_for(_fact("The user lives in Porto", "Location")) == 365
    (tmp_path / FILE_NAME).write_text("{oops")
    rules, (problem,) = load_lifetimes(tmp_path)
    assert problem.startswith(f"{FILE_NAME} can't be read") and rules == Lifetimes()


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_the_review_lists_the_aged_facts_oldest_first_a_few_a_week(tmp_path):
    async def scenario():
        async with memory_services(tmp_path) as (store, service, _log):
            facts = [
                await service.remember(text, category=category, explicit=True)
                for text, category in [
                    ("The user works as a nurse", "Professional"),
                    ("The user's name is Marta", "Personal"),
                    *[(f"The user lives in town number {n}", "Location") for n in range(7)],
                ]
            ]
            # Learned over the last weeks, oldest first.
            for days_ago, fact in enumerate(reversed(facts)):
                at = (SAID - timedelta(days=days_ago)).isoformat()
                await store.run(
                    lambda db, at=at, fid=fact.id: db.execute(
                        "UPDATE memories SET created_at = ? WHERE id = ?", [at, fid]
                    )
                )
            clock = Clock(SAID + timedelta(days=200))
            review = FactReview(service, FactAges(tmp_path), clock)
            young = await review.due()
            clock.now = SAID + timedelta(days=400)
            due = await review.due()
            kept = await review.confirm(due[0].id)
            gone = await review.retire(due[1].id)
            after = await review.due()
            clock.now += timedelta(days=8)  # a week later: a few more
            later = await review.due()
            return facts, young, due, kept, gone, after, later

    facts, young, due, kept, gone, after, later = run(scenario())
    assert young == []
    nurse, name, *towns = facts
    assert [m.id for m in due] == [nurse.id, *[t.id for t in towns][: REVIEWS_PER_WEEK - 1]]
    assert name.id not in {m.id for m in due + later}
    assert kept.as_of == (SAID + timedelta(days=400)).isoformat(timespec="microseconds")
    assert gone.status == MemoryStatus.SUPERSEDED and gone.superseded_by is None
    # Two answered this week: three more at most, none of those two.
    assert len(after) == REVIEWS_PER_WEEK - 2
    assert {kept.id, gone.id}.isdisjoint(m.id for m in after + later)
    assert len(later) == REVIEWS_PER_WEEK


def test_saying_it_again_reconfirms_and_an_aged_fact_is_quoted_as_of_its_date(
    tmp_path, fake_openai
):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            home = await assistant.memories.remember(
                "The user lives in Lisbon", category="Location", explicit=True
            )
            job = await assistant.memories.remember(
                "The user works as a nurse", category="Professional", explicit=True
            )
            for memory in (home, job):
                await assistant.memories.pin(memory.id)  # in every prompt
            old = "2024-03-05T10:00:00+00:00"
            await assistant._store.run(
                lambda db: db.execute("UPDATE memories SET created_at = ?", [old])
            )
            first = await assistant.orchestrator.send(None, "I live in Lisbon.")
            await assistant.runner.wait_idle(30)
            due = await assistant.review.due()
            again = await assistant.orchestrator.send(first.conversation_id, "What do I do?")
            return home, job, due, again

    home, job, due, again = run(scenario())
    # Each turn's own message (the history repeats earlier ones as they were sent).
    first, second = [
        r.json["messages"][-1]["content"]
        for r in fake_openai.chat_requests()
        if r.json.get("stream")
    ]
    assert "- The user lives in Lisbon (as of March 2024)\n" in first
    assert "- The user works as a nurse (as of March 2024)\n" in first
    # Said again in chat: as of now, quoted plainly, not due; the job was not, and is
    # (still quoted as of then, in the history's first message).
    assert [m.id for m in due] == [job.id] and home.id != job.id
    assert "- The user lives in Lisbon\n" in second
    assert again.answer.status == "complete"
