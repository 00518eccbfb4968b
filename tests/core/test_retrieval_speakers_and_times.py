"""Who a question asks about, and questions that ask for a time.

"What did Jon say about Gina's store?" asks what Jon said: the author lift goes to the
people a question asks about as speakers, not to one whose name only says whose thing
it is. "When did Nate win the tournament?" needs a message that says when: such
messages are lifted on a question that asks for a time. "What book did Tim recommend?"
matches John's question better than Tim's answer: a named speaker's reply to a question
that matches gets a share of its score."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.query import asked_topic, asks_when, process_query
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievalWeights
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store import conversations as conversation_sql
from tests.support.aio import run
from tests.support.memory import memory_services, shared_embedder


@pytest.mark.parametrize(
    ("question", "names", "speakers"),
    [
        ("What did Jon say about Gina's store?", ["Jon", "Gina"], ["Jon"]),
        (
            "What does Melanie think about Caroline’s decision?",
            ["Melanie", "Caroline"],
            ["Melanie"],
        ),
        # Every name possessive: the question is about them all.
        ("What inspired Caroline's painting?", ["Caroline"], ["Caroline"]),
        ("How do Jon and Gina both like to destress?", ["Jon", "Gina"], ["Jon", "Gina"]),
    ],
)
def test_a_possessive_name_is_not_a_speaker(question, names, speakers):
    processed = process_query(question)
    assert processed.names == names
    assert processed.speakers == speakers


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Melanie paint a sunrise?", True),
        ("So, when did I move to Lisbon?", True),
        ("How long ago did I buy the bike?", True),
        ("What year did Nate start gaming?", True),
        ("Which month was the concert?", True),
        ("What did I do when I was in Paris?", False),
        ("Where did Nate win the tournament?", False),
        ("What did I buy last week?", False),
    ],
)
def test_a_question_that_asks_for_a_time(question, expected):
    assert asks_when(question) is expected
    assert process_query(question).asks_when is expected


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        # The name is who, not what; "when" and "did" are stop words.
        # "race" and "races" are one stem (a silent final "e" is dropped).
        ("When did Idris run the race?", {"run", "rac"}),
        # A time word of the question is not its topic ("year" would match "last year").
        ("What year did Nate start gaming?", {"start", "gam"}),
    ],
)
def test_what_a_when_question_asks_about(question, topic):
    assert asked_topic(process_query(question)) == topic


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


def _search(directory, said, question, weights=None, location=None):
    """The texts of the messages found for ``question``, best first, in a fresh profile
    (or on the empty store at ``location``) holding one chat of ``said`` ((author,
    role, text) each)."""

    async def go():
        async with _memory(directory, location) as (store, service):

            def fill(db):
                chat = conversation_sql.create_conversation(db, "Catching up", False).id
                text_of = {}
                for author, role, text in said:
                    message = conversation_sql.add_message(
                        db,
                        chat,
                        role,
                        text,
                        author=author,
                        created_at="2023-03-01T10:00:00+00:00",
                    )
                    text_of[message.id] = text
                return text_of

            text_of = await store.run(fill)
            await service.episodes.embed_missing()
            retriever = HybridRetriever(
                store,
                service.embedder,
                service.index,
                messages=service.episodes.index,
                weights=weights,
            )
            asked = datetime(2023, 3, 10, tzinfo=UTC)
            hits = await retriever.search(question, 5, now=asked)
            return [text_of[hit.message.id] for hit in hits]

    return run(go())


STORE_TALK = [
    ("Gina", "user", "My store, my store! The store finally opened and the store looks good."),
    ("Jon", "assistant", "Your store is great, all that hard work is paying off."),
    ("Gina", "user", "Thanks! I painted the walls myself."),
]
GINAS, JONS = STORE_TALK[0][2], STORE_TALK[1][2]


def test_what_someone_said_about_anothers_thing_comes_from_the_speaker(tmp_path):
    found = _search(tmp_path, STORE_TALK, "What did Jon say about Gina's store?")
    assert found.index(JONS) < found.index(GINAS)


def test_a_question_about_both_lifts_both(tmp_path):
    # Neither name possessive: both are speakers, and Gina's stronger match stays first.
    found = _search(tmp_path, STORE_TALK, "What did Jon and Gina say about the store?")
    assert found.index(GINAS) < found.index(JONS)


TOURNAMENT_TALK = [
    ("Nate", "user", "Winning the tournament, the big gaming tournament, was so cool."),
    ("Joanna", "assistant", "Congrats! How did you celebrate?"),
    ("Nate", "user", "I won another tournament last week, and the prize money too."),
]
WON_SOMETIME, WON_LAST_WEEK = TOURNAMENT_TALK[0][2], TOURNAMENT_TALK[2][2]


def test_a_when_question_prefers_the_message_that_says_when(tmp_path):
    found = _search(tmp_path, TOURNAMENT_TALK, "When did Nate win the tournament?")
    assert found.index(WON_LAST_WEEK) < found.index(WON_SOMETIME)


def test_the_answer_time_is_read_on_either_store(store_location, tmp_path):
    found = _search(
        tmp_path, TOURNAMENT_TALK, "When did Nate win the tournament?", None, store_location
    )
    assert found.index(WON_LAST_WEEK) < found.index(WON_SOMETIME)


def test_without_the_answer_time_lift_the_stronger_match_comes_first(tmp_path):
    # What the lift changes: the same search ranks the message sharing more words first.
    found = _search(
        tmp_path,
        TOURNAMENT_TALK,
        "When did Nate win the tournament?",
        replace(RetrievalWeights(), answer_time=0.0),
    )
    assert found.index(WON_SOMETIME) < found.index(WON_LAST_WEEK)


def test_a_question_that_does_not_ask_when_keeps_the_stronger_match_first(tmp_path):
    found = _search(tmp_path, TOURNAMENT_TALK, "How did Nate win the tournament?")
    assert found.index(WON_SOMETIME) < found.index(WON_LAST_WEEK)


RACE_TALK = [
    ("Idris", "user", "Long week! My pottery class meets every Wednesday now."),
    ("Sam", "assistant", "Pottery sounds fun. And the running?"),
    ("Idris", "user", "I ran the race and finished it in under two hours!"),
]
CLASS_ON_WEDNESDAY, RAN_THE_RACE = RACE_TALK[0][2], RACE_TALK[2][2]


def test_a_time_word_about_something_else_is_not_lifted(tmp_path):
    # "every Wednesday" says when the class meets, not when Idris ran the race: the
    # message about the race stays first.
    found = _search(tmp_path, RACE_TALK, "When did Idris run the race?")
    assert found.index(RAN_THE_RACE) < found.index(CLASS_ON_WEDNESDAY)


BOOK_TALK = [
    ("John", "user", "I want to read more this year. Any good book you would recommend?"),
    ("Tim", "assistant", "Sure, try Sapiens, it changed how I see history."),
    ("John", "user", "Thanks! My sister gave me a book about gardening too."),
    ("Tim", "assistant", "Nice. My book club reads one book a month, this month a long book."),
    ("John", "user", "Long ones are hard for me."),
]
TIMS_ANSWER, TIMS_BOOK_CLUB = BOOK_TALK[1][2], BOOK_TALK[3][2]


def test_a_named_speakers_reply_to_a_matching_question_is_lifted(tmp_path):
    # John's question matches the words; Tim's answer to it is what is asked.
    found = _search(tmp_path, BOOK_TALK, "What book did Tim recommend to John?")
    assert found.index(TIMS_ANSWER) < found.index(TIMS_BOOK_CLUB)


def test_without_the_reply_lift_the_speakers_wordier_message_comes_first(tmp_path):
    # What the lift changes: the same search ranks Tim's message sharing more words first.
    found = _search(
        tmp_path,
        BOOK_TALK,
        "What book did Tim recommend to John?",
        replace(RetrievalWeights(), reply_share=0.0),
    )
    assert found.index(TIMS_BOOK_CLUB) < found.index(TIMS_ANSWER)
