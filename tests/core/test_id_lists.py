"""Statements by a list of ids keep to a handful of texts (so the prepared ones are
reused) and read the same rows as one mark per id would."""

from __future__ import annotations

import re

import pytest

from acai_desktop.core.clock import now_iso
from acai_desktop.core.store import episodes
from acai_desktop.core.store.conversations import create_conversation
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.id_lists import id_marks
from tests.support.aio import run


def test_marks_are_rounded_up_to_a_power_of_two_and_padded_with_the_last_id():
    assert id_marks([7]) == ("?", [7])
    assert id_marks([3, 1, 2]) == ("?,?,?,?", [3, 1, 2, 2])
    marks, values = id_marks(range(1, 34))
    assert marks.count("?") == 64 and values == [*range(1, 34), *[33] * 31]
    with pytest.raises(ValueError):
        id_marks([])


def _messages(db, count: int) -> list[int]:
    ids = []
    with db.atomic():
        conversation_id = None
        for position in range(count):
            if position % 8 == 0:
                conversation_id = create_conversation(db, f"Chat {position}").id
            cursor = db.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at) "
                "VALUES (?, ?, ?, ?)",
                [conversation_id, "user" if position % 2 == 0 else "assistant", "hi", now_iso()],
            )
            ids.append(cursor.lastrowid)
    return ids


def test_a_search_s_statements_by_id_use_few_texts_and_read_every_row_once(tmp_path):
    async def scenario():
        store = await Store.open(tmp_path / "profile.sqlite3")
        try:
            ids = await store.run(_messages, 40)

            def read_every_length(db):
                texts: set[str] = set()
                db.conn.set_trace_callback(texts.add)
                try:
                    found = [
                        [row[0] for row in episodes.message_facts(db, ids[:length])]
                        for length in range(1, len(ids) + 1)
                    ]
                    contents = [
                        sorted(episodes.message_contents(db, ids[:length]))
                        for length in range(1, len(ids) + 1)
                    ]
                finally:
                    db.conn.set_trace_callback(None)
                return found, contents, texts

            return ids, *(await store.run(read_every_length))
        finally:
            await store.close()

    ids, found, contents, texts = run(scenario())
    for length in range(1, len(ids) + 1):
        assert found[length - 1] == ids[:length]  # each once, in id order
        assert contents[length - 1] == ids[:length]
    # The trace shows each statement with its values bound: lengths 1 to 40 came as
    # lists of 1, 2, 4 … 64 ids (7 statement texts), not as 40 lengths.
    for table in ("recallable_messages", "FROM messages WHERE"):
        lists = [
            re.search(r"\.?id IN \(([^)]*)\)", text).group(1) for text in texts if table in text
        ]
        sizes = {len(values.split(",")) for values in lists}
        assert sizes == {1, 2, 4, 8, 16, 32, 64}
