"""The recall context is capped on both stores (issue 39, G11, migration m016): each
neighbouring message gives its first RECALL_CONTEXT_CHARS characters, so a long answer
is not copied whole into its four neighbours' index rows."""

from __future__ import annotations

from acai_desktop.core.store.conversations import ConversationRepository
from acai_desktop.core.store.migrations import RECALL_CONTEXT_CHARS
from tests.support.aio import run
from tests.support.memory import memory_services


def test_each_neighbour_gives_only_the_start_of_its_text(tmp_path, store_location):
    long_answer = "Walruses haul out on ice floes. " + "Blubber keeps them warm. " * 200

    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (store, _s, _l):
            chats = ConversationRepository(store)
            chat = await chats.create()
            question = await chats.add_message(chat.id, "user", "Where do walruses rest?")
            await chats.add_message(chat.id, "assistant", long_answer)
            reply = await chats.add_message(chat.id, "user", "Yes, last Friday!")
            return (
                question.id,
                reply.id,
                await store.run(
                    lambda db: db.execute(
                        "SELECT id, length(context) FROM message_recall_rows ORDER BY id"
                    ).fetchall()
                ),
            )

    question, reply, rows = run(scenario())
    lengths = dict(rows)
    # Each of the question and the reply has the long answer among its neighbours.
    assert RECALL_CONTEXT_CHARS <= lengths[question] <= 2 * RECALL_CONTEXT_CHARS + 1
    assert RECALL_CONTEXT_CHARS <= lengths[reply] <= 2 * RECALL_CONTEXT_CHARS + 1
