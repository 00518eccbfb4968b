"""Time named relative to the question, the asker's own words, the collection-calibrated
cosine, and the relevance floor: what a question about nothing stored gets."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import UTC, date, datetime

import numpy as np
import pytest

from acai_desktop.core.memory.context_builder import build_context
from acai_desktop.core.memory.explain import explain
from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.query import process_query
from acai_desktop.core.memory.relative_time import relative_periods
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMessage
from acai_desktop.core.memory.retrieval.candidates import SemanticCandidates
from acai_desktop.core.memory.retrieval.floor import (
    FloorItem,
    passing,
    stems_of,
    term_weights,
    word_coverage,
    words_bar,
)
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER
from acai_desktop.core.store import conversations as conversation_sql
from tests.support.aio import run
from tests.support.memory import shared_embedder

KEEP_ALL = MemoryPolicy(long_term_threshold=0.0)


def _days(text: str, today: date) -> list[tuple[str, str]]:
    return [(a.isoformat(), b.isoformat()) for a, b in relative_periods(text, today)]


@pytest.mark.parametrize(
    ("text", "today", "window"),
    [
        # A Thursday: last Saturday is five days back.
        ("Who gave me jewelry last Saturday?", date(2023, 3, 9), ("2023-03-04", "2023-03-05")),
        # Asked on a Saturday, "last Saturday" is a week back, not today.
        ("the music event last Saturday", date(2023, 4, 22), ("2023-04-15", "2023-04-16")),
        ("What did I cook a couple of days ago?", date(2022, 4, 12), ("2022-04-09", "2022-04-12")),
        ("the workshop two weeks ago", date(2023, 2, 1), ("2023-01-14", "2023-01-23")),
        ("yesterday's run", date(2023, 5, 2), ("2023-05-01", "2023-05-02")),
        # A Sunday: the weekend that is over is the one before.
        ("what did I do last weekend", date(2023, 5, 28), ("2023-05-20", "2023-05-22")),
        ("the last month", date(2023, 5, 30), ("2023-04-01", "2023-05-31")),
        # A month without a year is the latest one that has begun.
        ("the BBQ in June", date(2023, 7, 1), ("2023-06-01", "2023-07-01")),
        ("the games in November", date(2023, 3, 1), ("2022-11-01", "2022-12-01")),
    ],
)
def test_time_named_relative_to_the_question_becomes_a_window(text, today, window):
    assert _days(text, today) == [window]


def test_what_names_no_window_gives_none():
    today = date(2023, 3, 1)
    # "How many days ago" asks for a window; "may" the verb and "march" the walk are
    # no months; without the question's day nothing relative is resolved.
    assert _days("How many days ago did I watch the Super Bowl?", today) == []
    assert _days("May I ask where the protesters will march to?", today) == []
    assert process_query("the workshop two weeks ago").periods == []
    assert process_query("the workshop two weeks ago", today).periods == [
        ("2023-02-11", "2023-02-20")
    ]
    assert process_query("What did I buy?").first_person
    assert not process_query("What did Caroline buy?").first_person


def test_cosine_standing_is_counted_against_the_whole_collection():
    candidates = SemanticCandidates(
        np.array([1, 2]), np.array([0.5, 0.3], np.float32), 0.3, mean=0.1, spread=0.1, items=500
    )
    np.testing.assert_allclose(candidates.standing(np.array([0.5, 0.1])), [4.0, 0.0], atol=1e-6)
    # A handful of memories has no spread worth the name: meaning alone passes no floor.
    few = SemanticCandidates(np.array([1]), np.array([0.9], np.float32), 0.9, 0.1, 0.1, items=3)
    assert few.floor_standing(np.array([0.9]))[0] == -np.inf


def test_word_coverage_weighs_words_by_how_rare_they_are():
    terms = ["dishwasher", "warranty"]
    weights = term_weights([0, 0], 4)
    assert word_coverage(terms, weights, stems_of("My dog's name is Buster")) == 0.0
    held = stems_of("The dishwasher warranty runs out in May")
    assert word_coverage(terms, weights, held) == 1.0
    # A common word weighs little beside the rare one it comes with.
    weights = term_weights([400, 1], 1000)
    assert word_coverage(["name", "buster"], weights, stems_of("What a name!")) < 0.2
    # Stems: "painting" holds "painted", "camping" holds "camped".
    assert word_coverage(["painted"], term_weights([1], 10), stems_of("my painting")) == 1.0
    assert word_coverage(["camped"], term_weights([1], 10), stems_of("we love camping")) == 1.0


@asynccontextmanager
async def _profile(directory, said):
    """A profile whose chats said ``said`` ((title, role, text, when)): the message ids
    by text, and the retriever."""
    async with open_memory(
        Profile.at(directory), embedder=shared_embedder(), policy=KEEP_ALL
    ) as service:
        store = service.store

        def fill(db):
            ids = {}
            for title, role, text, at in said:
                chat = conversation_sql.create_conversation(db, title, False).id
                ids[text] = conversation_sql.add_message(db, chat, role, text, created_at=at).id
            return ids

        ids = await store.run(fill)
        await service.episodes.embed_missing()
        yield (
            ids,
            HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            ),
        )


def test_the_question_date_prefers_what_was_said_in_the_window_it_names(tmp_path):
    said = [
        ("Museum", "user", "I went to the science museum with Ana.", "2023-01-11T10:00:00+00:00"),
        ("Museum", "user", "I went to the art museum with Tom.", "2023-02-25T10:00:00+00:00"),
    ]
    question = "Which museum did I visit two months ago?"

    async def go():
        async with _profile(tmp_path, said) as (ids, retriever):
            asked = datetime(2023, 3, 11, 5, 28, tzinfo=UTC)
            dated = await retriever.search(question, 2, now=asked)
            undated = await retriever.search(question, 2, now=datetime(2030, 1, 1, tzinfo=UTC))
            return ids, dated, undated

    ids, dated, undated = run(go())
    assert dated[0].message.id == ids[said[0][2]]
    assert "on_date" in dated[0].reasons
    # Asked years later, "two months ago" names neither: no date reason at all.
    assert not any("on_date" in hit.reasons for hit in undated)


def test_a_question_in_the_first_person_prefers_what_the_user_wrote(tmp_path):
    said = [
        ("Shoes", "assistant", "Trail running shoes with a rock plate suit rocky paths.", None),
        ("Shoes", "user", "I bought trail running shoes for the rocky paths.", None),
    ]

    async def go():
        async with _profile(tmp_path, said) as (ids, retriever):
            mine = await retriever.search("Which trail running shoes did I buy?", 2)
            theirs = await retriever.search("Which trail running shoes suit rocky paths?", 2)
            return ids, mine, theirs

    ids, mine, theirs = run(go())
    assert mine[0].message.id == ids[said[1][2]]
    # Said by the asker ("I"), not by someone the question names: told as such.
    assert "asker" in mine[0].reasons and "author" not in mine[0].reasons
    assert explain(mine[0].score, mine[0].reasons, "", "").plain().count("you said it") == 1
    assert not any({"author", "asker"} & set(hit.reasons) for hit in theirs)


def test_a_question_about_nothing_stored_passes_nothing_and_the_prompt_says_so(tmp_path):
    async def go():
        async with open_memory(
            Profile.at(tmp_path), embedder=shared_embedder(), policy=KEEP_ALL
        ) as service:
            store = service.store
            facts = [
                "My dog's name is Buster",
                "The user is vegetarian and eats no meat or fish",
                "The user works as a nurse at the city hospital",
            ]
            await service.remember_many([MemoryDraft(f, kind=MemoryKind.FACT) for f in facts])
            retriever = HybridRetriever(store, service.embedder, service.index)
            off = await retriever.search("How long is my dishwasher warranty?", 5)
            real = await retriever.search("What is my dog called, Buster or Rex?", 5)
            return off, real

    off, real = run(go())
    assert off, "the ranking still returns its best items"
    assert not any(hit.relevant for hit in off)
    assert [hit.memory.content for hit in real if hit.relevant] == ["My dog's name is Buster"]

    def built_for(text, retrieved):
        return build_context(
            system_prompt="You are kind.",
            user_message=text,
            budget_tokens=2000,
            retrieved=retrieved,
        )

    built = built_for("Dishwasher?", off)
    # Nothing passed: the question goes alone (the system prompt says what that means).
    assert built.messages[-1]["content"] == "Dishwasher?"
    assert built.used == [] and built.dropped.irrelevant == len(off)
    built = built_for("Dog?", real)
    assert built.messages[-1]["content"].endswith(f"{USER_MESSAGE_HEADER}\nDog?")
    assert [u.memory_id for u in built.used] == [h.memory.id for h in real if h.relevant]


def test_a_reply_next_to_a_relevant_message_passes_with_it(tmp_path):
    said_at = "2023-05-01T10:00:00+00:00"

    async def go():
        async with open_memory(
            Profile.at(tmp_path), embedder=shared_embedder(), policy=KEEP_ALL
        ) as service:
            store = service.store

            def fill(db):
                chat = conversation_sql.create_conversation(db, "Race", False).id
                add = conversation_sql.add_message
                asked = add(db, chat, "assistant", "Did the marathon in Rotterdam go well?")
                reply = add(db, chat, "user", "Yes! Finished in 3:41.", created_at=said_at)
                return asked.id, reply.id

            ids = await store.run(fill)
            await service.episodes.embed_missing()
            retriever = HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            )
            return ids, await retriever.search("marathon Rotterdam time", 5)

    (asked, reply), hits = run(go())
    by_id = {hit.message.id: hit for hit in hits if isinstance(hit, RetrievedMessage)}
    assert by_id[asked].relevant
    assert reply in by_id and by_id[reply].relevant


def test_word_and_meaning_evidence_add_up_to_the_bar():
    def passes(coverage, standing):
        return passing([FloorItem(coverage, 0.5, standing, 8.0, False)])[0]

    # Either alone carries an item...
    assert passes(0.5, -1.0) and passes(0.0, 8.0)
    # ...and so do half the words and a bit more than half the meaning,
    assert passes(0.25, 4.5)
    # but not some of each that falls short, nor a cosine below the collection's mean,
    # which takes nothing away from the words either.
    assert not passes(0.2, 3.0)
    assert not passes(0.45, -3.0) and passes(0.5, -3.0)
    # A collection too small to have a spread: only the words count, at the bar for
    # words without meaning.
    assert not passes(0.45, -np.inf)
    assert words_bar(-np.inf, 0.5, 0.3) == 0.3 and words_bar(0.0, 0.5, 0.3) == 0.5


def test_below_the_first_k_only_strong_evidence_of_its_own_passes():
    weak, strong = FloorItem(0.55, 0.5, -1.0, 8.0, False), FloorItem(0.9, 0.5, -1.0, 8.0, False)
    named = FloorItem(0.0, 0.5, -1.0, 8.0, True)
    reply = FloorItem(0.0, 0.5, -1.0, 8.0, False, message_id=9, neighbours=(8, 10))
    anchor = FloorItem(0.9, 0.5, -1.0, 8.0, False, message_id=8, neighbours=(7, 9))
    assert passing([weak, weak, strong, named]) == [True] * 4
    # Read deeper than k=1: the weak one below it stays out, the strong and the named pass.
    assert passing([weak, weak, strong, named], sure_within=1) == [True, False, True, True]
    # A neighbour passes with its message within the first k, not below them.
    assert passing([anchor, reply], sure_within=2) == [True, True]
    assert passing([anchor, reply], sure_within=1) == [True, False]


# Sixty messages of small talk on fifteen topics: enough for a cosine spread.
_TOPICS = [
    "tomato soup",
    "the train to Lyon",
    "my tomato plants",
    "a jazz concert",
    "the new bike lane",
    "grandma's birthday",
    "the broken heater",
    "a chess club",
    "the dentist",
    "painting the fence",
    "a sourdough starter",
    "the hiking trail",
    "my phone screen",
    "the quiz night",
    "a rainy weekend",
]
_SMALL_TALK = [
    (f"Chat {number}", role, text.format(topic), None)
    for number, topic in enumerate(_TOPICS)
    for role, text in (
        ("user", "I keep thinking about {} lately."),
        ("assistant", "That sounds nice. What do you like most about {}?"),
        ("user", "Mostly that {} makes the week feel calmer."),
        ("assistant", "It is good to have {} to look forward to."),
    )
]
_GYM_PLAN = (
    "Here is a plan for your workout routine, now that you started going to the gym. "
    "Begin with a warm-up of five minutes on the rowing machine, then a collection of "
    "compound lifts: squats, deadlifts and bench press, three sets of eight each. Rest "
    "ninety seconds between sets and keep a log of the weights you lift so you can see "
    "progress over the weeks. On the second day focus on pull-ups, rows and lunges, and "
    "finish with ten minutes of stretching for the hamstrings and shoulders."
)


def test_a_long_answer_sharing_words_by_chance_does_not_pass(tmp_path):
    """A long answer holds a third of the question's weight ("started", "collection")
    by chance and means something else: not evidence. A short message on the topic,
    with some of the words and some of the meaning, is."""
    said = [
        *_SMALL_TALK,
        ("Gym", "user", "Can you give me a gym plan?", None),
        ("Gym", "assistant", _GYM_PLAN, None),
        ("Garden", "user", "The garden beds produced so many cherry tomatoes.", None),
    ]

    async def go():
        async with _profile(tmp_path, said) as (ids, retriever):
            postcards = await retriever.search(
                "How many new postcards have I added to my collection since I started collecting?",
                10,
            )
            tomatoes = await retriever.search(
                "Which tomato variety grew best in my raised garden beds?", 10
            )
            return ids, postcards, tomatoes

    ids, postcards, tomatoes = run(go())
    assert ids[_GYM_PLAN] in [hit.message.id for hit in postcards], "ranked, to be judged"
    assert not [hit.message.content for hit in postcards if hit.relevant]
    assert [hit.message.content for hit in tomatoes if hit.relevant] == [said[-1][2]]


def test_a_day_the_question_names_carries_part_of_the_bar():
    def passes(coverage, standing, on_date):
        return passing([FloorItem(coverage, 0.5, standing, 8.5, False, on_date=on_date)])[0]

    # Told on the day asked about, some words and some meaning are enough...
    assert passes(0.2, 2.0, 0.4)
    # ...where the same evidence on another day is not,
    assert not passes(0.2, 2.0, 0.0)
    # and the day alone, about nothing asked, is not either.
    assert not passes(0.0, -1.0, 0.4) and not passes(0.0, 3.0, 0.4)


def test_a_message_of_the_day_the_question_names_passes_on_less_evidence(tmp_path):
    """ "Who gave me a piece of jewelry last Saturday?": what was said that Saturday
    about a gift passes though it shares one word and some meaning; asked years later,
    when "last Saturday" is another day, it does not; a message of that Saturday about
    something else does not either."""
    saturday = "2023-03-04T11:00:00+00:00"
    gift = "At lunch my aunt gave me a small silver piece she had kept for years."
    boiler = "The plumber finally fixed the boiler this morning."
    said = [*_SMALL_TALK, ("Lunch", "user", gift, saturday), ("Home", "user", boiler, saturday)]
    question = "Who gave me a piece of jewelry last Saturday?"

    async def go():
        async with _profile(tmp_path, said) as (_ids, retriever):
            that_week = await retriever.search(question, 10, now=datetime(2023, 3, 9, tzinfo=UTC))
            years_later = await retriever.search(question, 10, now=datetime(2030, 1, 1, tzinfo=UTC))
            return that_week, years_later

    that_week, years_later = run(go())
    ranked = [hit.message.content for hit in that_week]
    assert gift in ranked and boiler in ranked, "both ranked, to be judged"
    assert [hit.message.content for hit in that_week if hit.relevant] == [gift]
    assert gift in [hit.message.content for hit in years_later]
    assert not [hit.message.content for hit in years_later if hit.relevant]


def test_a_memory_naming_a_brand_the_question_names_is_judged_by_its_words(tmp_path):
    """A memory passes as naming someone the question names only when someone of that
    name speaks in the history ("Caroline"): "Instagram" or "Canon" is a word like any
    other (LongMemEval's off-topic questions let such memories through)."""
    chat_lines = [
        ("Caroline", "I went to a support group meeting last night, it was powerful."),
        ("Melanie", "That is wonderful, I am proud of you for going."),
        ("Caroline", "I am also painting a lot again, mostly sunsets."),
    ] * 3
    facts = [
        "Caroline adopted a rescue greyhound last spring",
        "The user posts photos of their sourdough loaves on Instagram",
        "The user works night shifts at the harbour",
        "The user prefers tea without sugar",
        "The user is learning the cello",
    ]

    async def go():
        async with open_memory(
            Profile.at(tmp_path), embedder=shared_embedder(), policy=KEEP_ALL
        ) as service:
            store = service.store

            def fill(db):
                chat = conversation_sql.create_conversation(db, "Friends", False).id
                for author, text in chat_lines:
                    conversation_sql.add_message(db, chat, "user", text, author=author)

            await store.run(fill)
            await service.episodes.embed_missing()
            await service.remember_many([MemoryDraft(f, kind=MemoryKind.FACT) for f in facts])
            retriever = HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            )
            speaker = await retriever.search("What pets does Caroline have at home?", 10)
            brand = await retriever.search("Which Instagram filters suit a wedding video?", 10)
            return speaker, brand

    speaker, brand = run(go())

    def passed(hits) -> list[str]:
        return [
            h.memory.content for h in hits if h.relevant and not isinstance(h, RetrievedMessage)
        ]

    assert passed(speaker) == [facts[0]]
    assert passed(brand) == []
