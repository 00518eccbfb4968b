"""Hostile JSON given to every importer (issue 39, G5): nesting 100,000 levels deep and
numbers thousands of digits long are refused with a line that names the problem, never a
RecursionError or ValueError, and nothing is written."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.model import ImportFileError
from acai_desktop.core.conversations.chat_import.service import ConversationImports
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.transfer import import_memories
from acai_desktop.core.store.jobs import JobRepository
from tests.support.aio import run
from tests.support.memory import count_rows, memory_services

DEPTH = 100_000
LONG_NUMBER = "7" * 5_000
HOSTILE = {
    "deep lists": ("[" * DEPTH + "]" * DEPTH, "thousands of levels deep"),
    "deep objects": ('{"a":' * DEPTH + "1" + "}" * DEPTH, "thousands of levels deep"),
    "a long number": (
        f'[{{"uuid": "c1", "mapping": {{}},\n "create_time": {LONG_NUMBER}}}]',
        "a number 5,000 digits long at line 2, column 17 (the limit is 100 digits)",
    ),
}


@pytest.mark.parametrize("source", ["chatgpt", "claude"])
@pytest.mark.parametrize("shape", list(HOSTILE))
def test_a_chat_export_of_hostile_json_is_refused_in_one_line(tmp_path, source, shape):
    text, named = HOSTILE[shape]
    export = tmp_path / "conversations.json"
    export.write_text(text)

    async def scenario():
        async with memory_services(tmp_path / "profile") as (store, service, _log):
            imports = ConversationImports(store, service, EventBus(), JobRepository(store))
            with pytest.raises(ImportFileError) as refused:
                await imports.import_file(source, export, LearningBudget.parse("all"))
            return str(refused.value), await count_rows(store, "conversations")

    message, conversations = run(scenario())
    assert named in message and "nothing was imported" in message and "\n" not in message
    assert message.startswith(f"{export} is not a ") and conversations == 0


def _memories_file(path, memory_json: str):
    path.write_text(
        '{"format": "acai-desktop-memories", "version": 1, "memories": [' + memory_json + "]}"
    )
    return path


@pytest.mark.parametrize(
    ("memory", "named"),
    [
        (f'{{"uid": "a", "content": "I like tea", "use_count": {LONG_NUMBER}}}',
         "a number 5,000 digits long at line 1, column 115 (the limit is 100 digits)"),
        # Short enough for Python, too long for a database column.
        (json.dumps({"uid": "a", "content": "I like tea", "use_count": 10**30}),
         "memories[0].use_count: Input should be less than or equal to 9223372036854775807"),
        (json.dumps({"uid": "a", "content": "I like tea", "sources": [10**30]}),
         "memories[0].sources[0].message_id: Input should be less than or equal to"),
        ('{"uid": "a", "content": "x", "meta": ' + '{"a":' * DEPTH + "1" + "}" * DEPTH + "}",
         "thousands of levels deep"),
    ],
    ids=["long number", "use_count beyond bigint", "message id beyond bigint", "deep meta"],
)  # fmt: skip
def test_a_memories_file_of_hostile_json_is_refused_and_changes_nothing(tmp_path, memory, named):
    path = _memories_file(tmp_path / "memories.json", memory)

    async def scenario():
        async with memory_services(tmp_path / "profile") as (store, service, _log):
            with pytest.raises(InvalidInputError) as refused:
                await import_memories(service, path)
            return str(refused.value), await count_rows(store, "memories")

    message, memories = run(scenario())
    assert named in message and "nothing was changed" in message and memories == 0


@pytest.mark.parametrize("source", ["chatgpt", "claude", "memories"])
def test_an_export_over_the_size_limit_is_refused_before_it_is_read(tmp_path, source):
    """Issue 39, G11: a 2 GB export needed 4.5 GB of memory. A sparse 1.6 GB file (no
    disk used) is refused at once, the limit named, before a byte is read."""
    from acai_desktop.core.conversations.chat_import.importer import read_export
    from acai_desktop.core.memory.export_format import read_document

    huge = tmp_path / "conversations.json"
    with huge.open("wb") as handle:
        handle.truncate(1600 * 1024 * 1024)
    with pytest.raises(InvalidInputError) as refused:
        read_document(huge) if source == "memories" else read_export(source, huge)
    message = str(refused.value)
    assert message.startswith(f"{huge} is 1.6 GB; an import reads files of up to 1.5 GB")
    assert "nothing was" in message
