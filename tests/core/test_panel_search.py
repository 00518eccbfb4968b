"""The memory panel's search by topic and meaning, over a real store and WordLlama: the
plain cases of the issue, relevance before date, and paging in that order."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.listing import PanelQuery
from acai_desktop.core.memory.service import MemoryDraft
from benchmarks.eval_panel_search import (
    average_precision,
    evaluate_panel_search,
    load_panel_queries,
)
from tests.support.aio import run
from tests.support.memory import memory_services

#: Oldest first: what a search should find is older than what it shouldn't.
FACTS = [
    ("vegetarian", "The user is vegetarian", "Health"),
    ("peanuts", "The user is allergic to peanuts", "Health"),
    ("kids", "The user has two kids, Emma and Leo", "Relationship"),
    ("partner", "The user's partner Sam is a chef", "Relationship"),
    ("sister", "The user's sister Jess lives in Chicago", "Relationship"),
    ("job", "The user works as a nurse", "Professional"),
    ("employer", "The user's employer is St. Mary's hospital", "Professional"),
    ("asthma", "The user has asthma", "Health"),
    ("guitar", "The user plays guitar in a band", "Preference"),
    ("linux", "The user uses Linux at home", "Preference"),
    ("car", "The user drives a Subaru", "Other"),
    ("trip", "The user plans a trip to Japan in April", "Plan"),
]

PLAIN_CASES = {
    "food": {"vegetarian", "peanuts"},
    "family": {"kids", "partner", "sister"},
    "work": {"job", "employer"},
    "health": {"asthma", "peanuts"},
}


def _search(store_location, tmp_path, texts: list[str], page: int = 50):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            items = await service.remember_many(
                [MemoryDraft(content, category=category) for _, content, category in FACTS],
                explicit=True,
            )
            key_of = {item.id: key for item, (key, _, _) in zip(items, FACTS, strict=True)}
            shown = {}
            for text in texts:
                near = await service.near_in_meaning(text)
                result = await service.read_panel(PanelQuery(text=text, near=near), None, page)
                shown[text] = [key_of[item.id] for item in result.items]
            return shown

    return run(scenario())


def test_the_plain_cases_are_found_and_come_first(store_location, tmp_path):
    shown = _search(store_location, tmp_path, list(PLAIN_CASES))
    for text, expected in PLAIN_CASES.items():
        assert expected <= set(shown[text]), (text, shown[text])
        # Relevance, not date: the expected facts lead the list.
        assert set(shown[text][: len(expected)]) == expected, (text, shown[text])
    assert "car" not in shown["food"] and "guitar" not in shown["work"]


def test_a_search_with_nothing_on_its_topic_shows_nothing(store_location, tmp_path):
    assert _search(store_location, tmp_path, ["zebra crossing"])["zebra crossing"] == []


def test_pages_under_a_search_follow_the_relevance_order_without_gaps(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            await service.remember_many(
                [MemoryDraft(content, category=category) for _, content, category in FACTS],
                explicit=True,
            )
            near = await service.near_in_meaning("family")
            query = PanelQuery(text="family", near=near)
            whole = await service.read_panel(query, None, 100)
            seen, after = [], None
            while True:
                page = await service.read_panel(query, after, 2)
                seen += [item.id for item in page.items]
                if not page.more:
                    return near, [item.id for item in whole.items], seen
                after = query.key(page.items[-1])

    near, whole, seen = run(scenario())
    assert seen == whole and len(set(seen)) == len(seen)
    assert whole[: len(near)] == list(near)


def test_average_precision_rewards_the_expected_first():
    assert average_precision(["a", "b", "x"], {"a", "b"}) == 1.0
    assert average_precision(["x", "a", "b"], {"a", "b"}) == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert average_precision([], {"a"}) == 0.0


def test_the_labelled_queries_are_enough_and_the_eval_scores_them(tmp_path):
    profiles = load_panel_queries()
    assert sum(len(p.queries) for p in profiles) >= 40
    assert {p.name for p in profiles} == {"tune", "held_out"}
    tune = next(p for p in profiles if p.name == "tune")
    plain = [q for q in tune.queries if q.query in PLAIN_CASES]
    small = type(tune)(tune.name, tune.memories, tuple(plain))
    report = run(evaluate_panel_search([small], k=20)).as_dict()
    assert report["all"]["queries"] == 4
    assert report["all"]["recall@20"] == 1.0
    assert report["all"]["mean_average_precision"] == 1.0  # found, and found first


def test_a_query_expecting_an_unknown_memory_is_refused(tmp_path):
    path = tmp_path / "queries.json"
    profile = {"name": "p", "memories": [{"key": "a", "content": "The user is vegan"}]}
    path.write_text(
        json.dumps({"profiles": [{**profile, "queries": [{"query": "food", "expected": ["b"]}]}]}),
        encoding="utf-8",
    )
    with pytest.raises(InvalidInputError, match="unknown memories b"):
        load_panel_queries(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not a labelled query set"):
        load_panel_queries(path)
