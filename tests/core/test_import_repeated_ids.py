"""Exports that repeat message ids (issue 39, G3): a ChatGPT chat copied or branched from
another carries the other's message ids, a Claude uuid turns up in two chats. Every
conversation is imported whole, the repeats are counted, and importing the file again
adds nothing and fails nothing (on SQLite and PostgreSQL)."""

from __future__ import annotations

import copy
import json
import random
from datetime import UTC, datetime

from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.importer import import_conversations, read_export
from acai_desktop.core.events import EventBus
from benchmarks.synthetic_export import synthetic_conversation
from tests.support.aio import run
from tests.support.memory import memory_services

NOW = datetime(2025, 12, 1, tzinfo=UTC)
CHATS = 61
COPY_AT = 31  # the chat (from 0) that is a copy of chat 1, continued by one question


def _chatgpt_export(path):
    """CHATS conversations of 4 messages; chat COPY_AT is chat 1 copied (same message
    ids, a new conversation id) and continued by one question of its own."""
    rng = random.Random(3)
    data = [synthetic_conversation(rng, i, 4, 1_700_000_000.0 + i * 3600) for i in range(CHATS)]
    copied = copy.deepcopy(data[1])
    copied.update(conversation_id="copied-chat", id="copied-chat", title="Copied chat")
    leaf = copied["current_node"]
    copied["mapping"][leaf]["children"].append("copied-q")
    copied["mapping"]["copied-q"] = {
        "id": "copied-q",
        "parent": leaf,
        "children": [],
        "message": {
            "id": "copied-q",
            "author": {"role": "user"},
            "create_time": 1_800_000_000.0,
            "content": {"content_type": "text", "parts": ["And what about the return trip?"]},
            "metadata": {},
            "recipient": "all",
        },
    }
    copied["current_node"] = "copied-q"
    data[COPY_AT] = copied
    path.write_text(json.dumps(data))
    return path


def _claude_chat(index: int, uuids: list[str]) -> dict:
    return {
        "uuid": f"chat-{index}",
        "name": f"Chat {index}",
        "created_at": f"2025-01-{1 + index % 28:02d}T10:00:00Z",
        "chat_messages": [
            {
                "uuid": uuid,
                "sender": "human" if n % 2 == 0 else "assistant",
                "text": f"Message {n} of chat {index} ({uuid})",
                "created_at": f"2025-01-{1 + index % 28:02d}T10:0{n}:00Z",
            }
            for n, uuid in enumerate(uuids)
        ],
    }


async def _import(data_dir, path, source, *, location=None):
    async with memory_services(data_dir, store_location=location) as (store, service, _log):
        report = await import_conversations(
            store,
            service,
            EventBus(),
            read_export(source, path),
            LearningBudget.parse("none"),
            batch_messages=40,  # many batches: the copy is written batches after the original
            now=NOW,
        )
        rows = await store.run(
            lambda db: db.execute(
                "SELECT c.source_id, count(m.id) FROM conversations AS c "
                "LEFT JOIN messages AS m ON m.conversation_id = c.id GROUP BY c.id ORDER BY c.id"
            ).fetchall()
        )
    return report, {source_id: count for source_id, count in rows}


def test_a_copied_chatgpt_chat_is_imported_whole_and_again_adds_nothing(tmp_path, store_location):
    export = _chatgpt_export(tmp_path / "conversations.json")

    first, counts = run(_import(tmp_path, export, "chatgpt", location=store_location))
    again, counts_again = run(_import(tmp_path, export, "chatgpt", location=store_location))

    assert len(counts) == CHATS
    assert counts["chatgpt:copied-chat"] == 5  # chat 1's four messages and its own question
    assert counts["chatgpt:synthetic-000001"] == 4
    assert (first.conversations, first.messages) == (CHATS, CHATS * 4 + 1)
    assert (first.repeated_ids_kept, first.repeated_ids_dropped) == (4, 0)
    assert first.repeats_text() == (
        "Messages whose id another conversation also has (a copied or branched chat), "
        "kept in both: 4."
    )
    assert (again.conversations, again.messages, again.skipped_conversations) == (0, 0, CHATS)
    assert again.skipped_messages == CHATS * 4 + 1 and counts_again == counts


def test_an_import_cut_short_by_a_repeat_is_finished_by_importing_again(tmp_path):
    """The shape of the failure in the issue: the chats before the copy are in (an
    import that stopped there), and the same file imported again brings the rest."""
    export = _chatgpt_export(tmp_path / "conversations.json")
    data = json.loads(export.read_text())
    before = tmp_path / "before.json"
    before.write_text(json.dumps(data[:COPY_AT]))

    run(_import(tmp_path, before, "chatgpt"))
    rest, counts = run(_import(tmp_path, export, "chatgpt"))

    assert (rest.conversations, rest.skipped_conversations) == (CHATS - COPY_AT, COPY_AT)
    assert len(counts) == CHATS and counts["chatgpt:copied-chat"] == 5


def test_a_claude_uuid_in_two_chats_and_twice_in_one(tmp_path):
    chats = [_claude_chat(i, [f"m{i}-{n}" for n in range(3)]) for i in range(30)]
    chats[20] = _claude_chat(20, ["m2-0", "m2-1", "m20-2"])  # two of chat 2's uuids
    chats[25] = _claude_chat(25, ["m25-0", "m25-1", "m25-0"])  # one uuid twice in a chat
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(chats))

    first, counts = run(_import(tmp_path, export, "claude"))
    again, counts_again = run(_import(tmp_path, export, "claude"))

    assert len(counts) == 30 and (counts["claude:chat-20"], counts["claude:chat-25"]) == (3, 2)
    assert (first.repeated_ids_kept, first.repeated_ids_dropped) == (2, 1)
    assert first.repeats_text().endswith(
        "kept in both: 2; messages repeated within one conversation, left out: 1."
    )
    assert (again.messages, again.skipped_conversations, counts_again) == (0, 30, counts)


def test_the_import_command_counts_the_repeats(tmp_path, capsys):
    from acai_desktop.cli import main

    export = _chatgpt_export(tmp_path / "conversations.json")
    profile = ["--data-dir", str(tmp_path / "profile"), "--learn", "none"]
    code = main(["import", "chatgpt", str(export), *profile])
    out = capsys.readouterr().out
    again = main(["import", "chatgpt", str(export), *profile, "--json"])
    report = json.loads(capsys.readouterr().out)

    assert (code, again) == (0, 0)
    assert f"Imported {CHATS} conversations ({CHATS * 4 + 1} messages)" in out
    assert "(a copied or branched chat), kept in both: 4." in out
    assert (report["repeated_ids_kept"], report["skipped_messages"]) == (0, CHATS * 4 + 1)
