"""The search box over conversations: titles by their words, messages through FTS5 in
BM25 order, temporary chats while they exist, deleted ones never, and user text that is
never FTS syntax."""

from __future__ import annotations

import pytest

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.conversation_deletion import delete_conversation
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.conversation_search import match_expression, snippet
from acai_desktop.core.store.conversations import rename_conversation
from acai_desktop.core.store.store_url import open_store
from tests.support.aio import run

LONG_REPLY = (
    "Here is a long answer that rambles for a while about many unrelated things, the "
    "weather, the news, a recipe for bread and a story about a cat, before it finally "
    "says that your dog Buster needs his vaccination next Tuesday at the vet on Main "
    "Street, and then it carries on rambling for quite a while longer about other things."
)


async def seeded(store_location):
    store = await open_store(store_location)
    repo = ConversationRepository(store)
    pets = await repo.create()
    await repo.add_message(pets.id, "user", "Tell me about Buster")
    reply = await repo.add_message(pets.id, "assistant", LONG_REPLY)
    trip = await repo.create()
    await repo.add_message(trip.id, "user", "Planning a trip to Lisbon with Buster the dog")
    await store.run(rename_conversation, trip.id, "Lisbon holiday")
    lone = await repo.add_message(trip.id, "user", "Buster Buster Buster dog dog")
    streaming = await repo.add_message(
        trip.id, "assistant", "a zebra half-written", status=MessageStatus.STREAMING
    )
    secret = await repo.create(temporary=True)
    await repo.add_message(secret.id, "user", "A temporary note about the Zebra crossing")
    ids = {
        "pets": pets.id,
        "trip": trip.id,
        "secret": secret.id,
        "reply": reply.id,
        "lone": lone.id,
        "streaming": streaming.id,
    }
    return store, repo, ids


def test_titles_by_word_and_messages_in_bm25_order_with_plain_snippets(store_location):
    async def scenario():
        store, repo, ids = await seeded(store_location)
        try:
            return ids, await repo.search("buster DOG"), await repo.search("LISB")
        finally:
            await store.close()

    ids, dog, lisbon = run(scenario())
    assert all(hit.message_id is not None for hit in dog)  # "Lisbon holiday" has no dog
    # BM25: the short message repeating both words first, the long reply last.
    assert dog[0].message_id == ids["lone"]
    assert dog[-1].message_id == ids["reply"]
    assert [hit.conversation_id for hit in dog].count(ids["pets"]) == 1  # "Tell me about Buster"
    reply = dog[-1]
    assert reply.title == "Tell me about Buster" and reply.role == "assistant"
    # The snippet is plain text cut around the first match, not the message's start.
    assert reply.snippet.startswith("…") and "that your dog Buster needs" in reply.snippet
    assert reply.snippet[1] != " " and reply.snippet[1:].split()[0] in LONG_REPLY.split()
    assert len(reply.snippet) <= 162 and "<b>" not in reply.snippet
    assert reply.created_at
    # A title hit (no message) comes first, by a half-typed word, case-insensitively.
    assert lisbon[0].conversation_id == ids["trip"] and lisbon[0].message_id is None
    assert lisbon[0].title == "Lisbon holiday"
    assert [hit.message_id for hit in lisbon[1:]] == [
        next(h.message_id for h in dog if "Lisbon" in h.snippet)
    ]


def test_temporary_chats_while_they_exist_and_deleted_ones_never(store_location):
    async def scenario():
        store, repo, ids = await seeded(store_location)
        try:
            before = await repo.search("zebra")
            await store.run(delete_conversation, ids["secret"])
            await store.run(delete_conversation, ids["pets"])
            after = await repo.search("zebra"), await repo.search("vaccination")
            return ids, before, after
        finally:
            await store.close()

    ids, before, (zebra_after, vaccination_after) = run(scenario())
    # The temporary chat by its title (its first message) and by that message; the
    # half-written answer of the other chat is not a result.
    assert [(hit.conversation_id, hit.temporary, hit.message_id is None) for hit in before] == [
        (ids["secret"], True, True),
        (ids["secret"], True, False),
    ]
    assert "Zebra crossing" in before[1].snippet
    assert zebra_after == [] and vaccination_after == []


@pytest.mark.parametrize(
    "query",
    [
        '"Buster',
        "Buster*",
        "Buster AND",
        "NEAR(Buster dog",
        "(Buster",
        "Buster)",
        "dog OR",
        "content: Buster",
        "{content context}: Buster",
        "-Buster ^dog",
        'Bus"ter',
    ],
)
def test_fts_syntax_in_the_query_is_only_words(store_location, query):
    async def scenario():
        store, repo, _ = await seeded(store_location)
        try:
            return await repo.search(query)
        finally:
            await store.close()

    hits = run(scenario())  # no FTS5 syntax error
    assert all(isinstance(hit.snippet, str) for hit in hits)


def test_no_words_no_results_and_the_limit_holds(store_location):
    async def scenario():
        store, repo, _ = await seeded(store_location)
        try:
            return (
                await repo.search('  "*()  '),
                await repo.search(""),
                await repo.search("buster", limit=2),
            )
        finally:
            await store.close()

    nothing, empty, two = run(scenario())
    assert nothing == [] and empty == [] and len(two) == 2


def test_match_expression_quotes_every_word_and_snippets_keep_short_text_whole():
    assert match_expression(["dog", "a"]) == '{content} : (("dog" OR "dog"*) AND "a")'
    assert match_expression([]) is None
    assert snippet("Short  line\nwith dog", ["dog"]) == "Short line with dog"
    # Words before the match are kept, and the cut falls between two words.
    text = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo dog lima"
    assert snippet(text, ["dog"]) == "…foxtrot golf hotel india juliet kilo dog lima"
