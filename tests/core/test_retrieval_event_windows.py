"""Questions placed before or after an event ("before I moved"): the event is found in
what was said, and messages on that side of its day are preferred."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.query import content_terms, process_query
from acai_desktop.core.memory.relative_time import EventAnchor, event_anchors
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievalWeights
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store import conversations as conversation_sql
from tests.support.aio import run
from tests.support.memory import memory_services, shared_embedder


@pytest.mark.parametrize(
    ("question", "anchors"),
    [
        ("Where did I live before I moved?", [EventAnchor("before", ("moved",))]),
        (
            "What gadget did I buy before getting the Air Fryer?",
            [EventAnchor("before", ("getting", "air", "fryer"))],
        ),
        (
            "How many postcards have I added since I started collecting again?",
            [EventAnchor("after", ("started", "collecting"))],
        ),
        (
            "How many days passed since I finished the novel when I joined the club?",
            [EventAnchor("after", ("finished", "novel"))],
        ),
        (
            "What did Melanie realize after the charity race?",
            [EventAnchor("after", ("charity", "race"))],
        ),
        # Dates and spans are periods, not events; no preposition, no event.
        ("What did I buy since May?", []),
        ("What did I do after the 5th?", []),
        ("What did I do after two weeks of rain?", []),
        ("Where did I move to?", []),
    ],
)
def test_an_event_named_as_a_time_becomes_an_anchor(question, anchors):
    assert event_anchors(question, content_terms) == anchors
    assert process_query(question).anchors == anchors


SAID = [
    ("Flat", "My flat in Porto has a tiny kitchen and a balcony.", "2022-03-01T10:00:00+00:00"),
    ("Move", "I moved to Lisbon last week, boxes everywhere.", "2022-06-10T10:00:00+00:00"),
    ("Flat", "My flat in Lisbon has a big kitchen and a garden.", "2022-09-01T10:00:00+00:00"),
]
PORTO, LISBON = SAID[0][1], SAID[2][1]


@asynccontextmanager
async def _memory(directory, location):
    """A fresh profile's memory in ``directory``, or on the store at ``location``."""
    if location is not None:
        async with memory_services(
            directory, policy=MemoryPolicy(0.0), store_location=location
        ) as (store, service, _log):
            yield store, service
        return
    async with open_memory(
        Profile.at(directory), embedder=shared_embedder(), policy=MemoryPolicy(0.0)
    ) as service:
        store = service.store
        yield store, service


def _search(directory, question, weights=None, location=None):
    """The texts of the best three messages for ``question``, asked in a fresh profile
    (or on the empty store at ``location``) on 1 October 2022."""

    async def go():
        async with _memory(directory, location) as (store, service):

            def fill(db):
                ids = {}
                for title, text, at in SAID:
                    chat = conversation_sql.create_conversation(db, title, False).id
                    message = conversation_sql.add_message(db, chat, "user", text, created_at=at)
                    ids[message.id] = text
                return ids

            text_of = await store.run(fill)

            def ask(db):
                chat = conversation_sql.create_conversation(db, "Now", False).id
                return conversation_sql.add_message(db, chat, "user", question).id

            # As in a turn: the question is stored, and left out of its own search (it
            # tells "moved" too, and is the newest message of all).
            asking = await store.run(ask)
            await service.episodes.embed_missing()
            retriever = HybridRetriever(
                store,
                service.embedder,
                service.index,
                messages=service.episodes.index,
                weights=weights,
            )
            asked = datetime(2022, 10, 1, tzinfo=UTC)
            hits = await retriever.search(question, 3, now=asked, exclude_message_ids=[asking])
            return [text_of[hit.message.id] for hit in hits]

    return run(go())


def test_before_an_event_prefers_what_was_said_before_the_day_it_was_told(tmp_path):
    before = "What was my flat's kitchen like before I moved?"
    after = "What is my flat's kitchen like since I moved?"
    found_before = _search(tmp_path / "before", before)
    found_after = _search(tmp_path / "after", after)
    assert found_before.index(PORTO) < found_before.index(LISBON)
    assert found_after.index(LISBON) < found_after.index(PORTO)


def test_the_event_is_dated_on_either_store(store_location, tmp_path):
    # PostgreSQL finds the event's message by its own full text (no FTS5 MATCH there).
    found = _search(
        tmp_path, "What was my flat's kitchen like before I moved?", None, store_location
    )
    assert found.index(PORTO) < found.index(LISBON)


def test_without_the_event_window_the_newer_flat_comes_first(tmp_path):
    # What the window changes: the same search without it ranks by words, meaning
    # and recency alone.
    before = "What was my flat's kitchen like before I moved?"
    found = _search(tmp_path, before, replace(RetrievalWeights(), event_window=0.0))
    assert found.index(LISBON) < found.index(PORTO)
