"""The message tier's semantic side reads a message with the turns around it."""

from __future__ import annotations

import numpy as np

from acai_desktop.core.memory.retrieval.message_tier import context_cosines
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store import episodes
from acai_desktop.core.store.database import Store
from tests.support.aio import run


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, np.float32)
    return vector / np.linalg.norm(vector)


def test_a_reply_borrows_the_meaning_of_the_question_before_it():
    index = VectorIndex(2)
    query = _unit(1, 0)
    index.upsert(1, _unit(1, 0))  # the question, on topic
    index.upsert(2, _unit(0, 1))  # the reply ("Yes, last Friday!"), off topic alone
    index.upsert(3, _unit(0, 1))  # small talk after it
    weights = RetrievalWeights(message_vector_context=0.5)
    own, in_context = context_cosines(index, query, [2, 3], [1, 2], [3, -1], weights)
    np.testing.assert_allclose(own, [0.0, 0.0], atol=1e-6)
    # (0 + 0.5 * 1 + 0.5 * 0) / 2 for the reply; (0 + 0.5 * 0) / 1.5 after it.
    np.testing.assert_allclose(in_context, [0.25, 0.0], atol=1e-6)
    # A neighbour not in the index (none, one not recallable, one not embedded yet)
    # is left out; a message not in it counts 0 with its neighbours.
    own, in_context = context_cosines(index, query, [1, 98], [-1, 1], [99, -1], weights)
    np.testing.assert_allclose(in_context, [1.0, 0.5 / 1.5], atol=1e-6)
    # Weight 0: the message's own cosine.
    alone = RetrievalWeights(message_vector_context=0.0)
    _own, in_context = context_cosines(index, query, [2], [1], [3], alone)
    np.testing.assert_allclose(in_context, [0.0], atol=1e-6)


def test_candidate_rows_name_the_recallable_neighbours(tmp_path):
    async def go():
        store = await Store.open(tmp_path / "acai.sqlite3")
        try:

            def fill(db):
                chat = conversation_sql.create_conversation(db, "Chat", False).id
                other = conversation_sql.create_conversation(db, "Other", False).id
                first = conversation_sql.add_message(db, chat, "user", "first").id
                conversation_sql.add_message(db, other, "user", "elsewhere")
                middle = conversation_sql.add_message(db, chat, "assistant", "middle").id
                last = conversation_sql.add_message(db, chat, "user", "last").id
                return first, middle, last

            first, middle, last = await store.run(fill)
            rows = await store.run(episodes.message_facts, [first, middle, last])
            return first, middle, last, {row[0]: row[4:6] for row in rows}
        finally:
            await store.close()

    first, middle, last, neighbours = run(go())
    # The other chat's message, between them by id, is no neighbour.
    assert neighbours == {first: (-1, middle), middle: (first, last), last: (middle, -1)}
