"""The memory panel's rule in the core: SQL pages and counts, and the same rule for one item."""

from __future__ import annotations

import pytest

from acai_desktop.core.errors import ProtectedMemoryError
from acai_desktop.core.memory.listing import EVERYWHERE, PanelFilter, PanelQuery, panel_key
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.records.memories import Actor
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.store.projects import create_project, set_memory_project
from tests.support.aio import run
from tests.support.memory import memory_services

# Everything not explicit stays temporary, so the profile holds every visible status.
TEMPORARY_UNLESS_EXPLICIT = MemoryPolicy(long_term_threshold=1.0)

QUERIES = [PanelQuery.of("", choice.value) for choice in PanelFilter] + [
    PanelQuery.of("lyon"),
    PanelQuery.of("LYON user"),
    PanelQuery.of("éCOLE"),  # case folding beyond ASCII
    PanelQuery.of("travel", "Facts"),  # a category word
    PanelQuery.of("tea", "Pinned"),
    PanelQuery.of("zebra"),
    # A project's memories (the first project made is id 1), and those of none.
    PanelQuery.of("", "All", 1),
    PanelQuery.of("", "All", EVERYWHERE),
    PanelQuery.of("lyon", "Facts", 1),
    PanelQuery.of("tea", "Pinned", 1),
]


async def varied_profile(service):
    """Facts, notes and summaries; pinned, temporary, conflict, forgotten, superseded."""
    items = await service.remember_many(
        [
            MemoryDraft("The user lives in Lyon", category="Home"),
            MemoryDraft("The user prefers tea", kind="fact"),
            MemoryDraft("Remember the École Normale visit", kind="note"),
            MemoryDraft("We talked about Lyon restaurants", kind="summary"),
            MemoryDraft("The user flies to Lisbon in May", category="Travel"),
            MemoryDraft("The user's sister is called Ana", category="family"),
        ],
        explicit=True,
    )
    lyon, tea, _note, _summary, lisbon, sister = items
    await service.remember("ok sure", explicit=False)  # temporary
    await service.remember("the user maybe likes tea in the evening", explicit=False)
    await service.pin(tea.id)
    with pytest.raises(ProtectedMemoryError):
        await service.edit(tea.id, "The user prefers coffee", actor=Actor.CRITICAL_INFO_PROCESSOR)
    await service.forget(sister.id)
    await service.propose_change(lisbon.id, "The user flies to Lisbon in June", actor=Actor.USER)
    project = await service.store.run(create_project, "Moving house")
    await service.store.run(set_memory_project, lyon.id, project.id)
    return lyon


def test_sql_pages_counts_and_matches_agree_for_every_query(store_location, tmp_path):
    async def scenario():
        async with memory_services(
            tmp_path, store_location=store_location, policy=TEMPORARY_UNLESS_EXPLICIT
        ) as (
            _store,
            service,
            _events,
        ):
            await varied_profile(service)
            everything = await service.list(MemoryFilter(statuses=None))
            assert {item.status.value for item in everything} == {
                "active",
                "temporary",
                "conflict",
                "forgotten",
                "superseded",
            }
            newest_first = sorted(everything, key=panel_key, reverse=True)
            for query in QUERIES:
                expected = [item.id for item in newest_first if query.matches(item)]
                page = await service.read_panel(query, None, 100, with_total=True)
                assert [item.id for item in page.items] == expected, query
                assert page.total == len(expected) == await service.count_panel(query)
                assert not page.more
            by_name = {
                query: {item.content for item in newest_first if query.matches(item)}
                for query in QUERIES
            }
            assert by_name[PanelQuery.of("", "Conflicts")] == {"The user prefers coffee"}
            assert by_name[PanelQuery.of("", "Pinned")] == {"The user prefers tea"}
            assert by_name[PanelQuery.of("", "Temporary")] == {
                "ok sure",
                "the user maybe likes tea in the evening",
            }
            assert by_name[PanelQuery.of("éCOLE")] == {"Remember the École Normale visit"}
            assert by_name[PanelQuery.of("travel", "Facts")] == {"The user flies to Lisbon in June"}
            assert by_name[PanelQuery.of("LYON user")] == {"The user lives in Lyon"}
            assert by_name[PanelQuery.of("zebra")] == set()
            assert by_name[PanelQuery.of("", "All", 1)] == {"The user lives in Lyon"}
            assert by_name[PanelQuery.of("lyon", "Facts", 1)] == {"The user lives in Lyon"}
            assert by_name[PanelQuery.of("tea", "Pinned", 1)] == set()
            everywhere = by_name[PanelQuery.of("", "All", EVERYWHERE)]
            assert everywhere == by_name[PanelQuery()] - {"The user lives in Lyon"}
            # Forgotten and superseded memories are never in the panel.
            assert "The user's sister is called Ana" not in by_name[PanelQuery()]
            assert "The user flies to Lisbon in May" not in by_name[PanelQuery()]

    run(scenario())


def test_keyset_pages_cover_everything_once_even_with_inserts_between_pages(
    store_location, tmp_path
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            await service.remember_many(
                [MemoryDraft(f"The user noted item number {n}") for n in range(23)], explicit=True
            )
            seen, after, pages = [], None, 0
            while True:
                page = await service.read_panel(PanelQuery(), after, 5)
                pages += 1
                seen += [item.id for item in page.items]
                if pages == 2:  # a new memory arrives while the user scrolls
                    await service.remember("The user noted a late item", explicit=True)
                if not page.more:
                    break
                after = panel_key(page.items[-1])  # no search: relevance 0
            assert pages == 5
            assert len(seen) == len(set(seen)) == 23  # the late one is above the first page
            assert seen == sorted(seen, reverse=True)
            assert await service.count_panel(PanelQuery()) == 24
            searched = await service.read_panel(PanelQuery.of("number 1"), None, 3, with_total=True)
            assert searched.total == 12 and searched.more  # words are substrings: 1, 10..19, 21
            assert searched.items[0].content == "The user noted item number 21"

    run(scenario())


def test_a_search_finds_memories_by_meaning_beside_its_words(store_location, tmp_path):
    """ "pet" holds none of the words of "The user's dog is named Buster", but its meaning
    is close (a pet is a topic whose memories name dogs); the SQL and the one-memory rule
    agree on the result."""

    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            dog, job, petition = [
                await service.remember(text, explicit=True)
                for text in (
                    "The user's dog is named Buster",
                    "The user works as a data engineer",
                    "The user signed a petition for the park",
                )
            ]
            near = await service.near_in_meaning("pet")
            by_words = PanelQuery(text="pet")
            both = PanelQuery(text="pet", near=near)
            pages = [
                await service.read_panel(query, None, 100, with_total=True)
                for query in (by_words, both)
            ]
            return dog, job, petition, near, pages, both

    dog, job, petition, near, (words_page, both_page), both = run(scenario())
    assert [m.id for m in words_page.items] == [petition.id]  # "petition" holds "pet"
    assert dog.id in near and job.id not in near
    assert {m.id for m in both_page.items} == {dog.id, petition.id}
    assert both_page.total == len(both_page.items)
    # A memory arriving while the search is shown is judged by the same rule.
    assert both.matches(dog) and both.matches(petition) and not both.matches(job)
    assert both.asked() == PanelQuery(text="pet")
