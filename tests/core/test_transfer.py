"""Export/import: a round trip keeps everything, re-importing adds nothing, a bad file
changes nothing."""

from __future__ import annotations

import json
import sqlite3

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.transfer import export_memories, import_memories, parse_document
from acai_desktop.core.records.memories import Actor, MemoryStatus
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.memories import MemoryFilter
from tests.support.aio import run
from tests.support.memory import count_rows, memory_services, retrieve

ALL = MemoryFilter(statuses=None)
PROCESSOR = Actor.CRITICAL_INFO_PROCESSOR
# Fields that must survive a round trip unchanged (ids and conversation links are local).
KEPT = (
    "content",
    "kind",
    "category",
    "confidence",
    "importance",
    "pinned",
    "status",
    "origin",
    "user_edited",
    "created_at",
    "updated_at",
    "use_count",
    "last_used_at",
)


async def build_rich_profile(service, store):
    conversations = ConversationRepository(store)
    conversation = await conversations.create()
    message = await conversations.add_message(conversation.id, "user", "I moved to Berlin")
    pinned = await service.remember("My name is John", category="Personal")
    await service.pin(pinned.id)
    await service.propose_change(pinned.id, "The user is called Jon", actor=PROCESSOR)
    old = await service.remember("The user lives in Paris", actor=PROCESSOR, confidence=0.7)
    await service.propose_change(
        old.id, "The user lives in Berlin", sources=[message.id], actor=Actor.USER
    )
    edited = await service.remember("I drink coffee", kind="note")
    await service.edit(edited.id, "I drink tea")
    gone = await service.remember("I use vim every day")
    await service.forget(gone.id)
    await service.remember("hm okay", actor=PROCESSOR)  # temporary
    used = await service.remember("I like hiking in the Alps")
    await service.reinforce(used.id, actor=PROCESSOR, source_message_ids=[message.id])
    return message


def by_content(items):
    return {item.content: item for item in items}


def test_round_trip_keeps_every_field_link_source_and_history(tmp_path):
    async def scenario():
        exported = tmp_path / "memories.json"
        async with memory_services(tmp_path / "a") as (store, service, _events):
            await build_rich_profile(service, store)
            originals = await service.list(ALL)
            histories = {m.content: await service.history(m.id) for m in originals}
            count = await export_memories(service, exported)
            assert count == len(originals) == 8
        document = json.loads(exported.read_text(encoding="utf-8"))
        assert document["format"] == "acai-desktop-memories" and document["version"] == 1
        parse_document(exported.read_text(encoding="utf-8"))  # what we write, we accept

        async with memory_services(tmp_path / "b") as (store, service, events):
            report = await import_memories(service, exported)
            assert report.to_dict() == {"imported": 8, "skipped": 0, "unlinked_sources": 2}
            copies = by_content(await service.list(ALL))
            for original in originals:
                copy = copies[original.content]
                for name in KEPT:
                    assert getattr(copy, name) == getattr(original, name), (original, name)
                assert copy.meta["uid"] == original.meta["uid"]
                recorded = [
                    (e.at, e.actor, e.action, e.before, e.after)
                    for e in histories[original.content]
                ]
                history = await service.history(copy.id)
                assert [(e.at, e.actor, e.action, e.before, e.after) for e in history[:-1]] == (
                    recorded
                )
                assert (history[-1].actor, history[-1].action) == (Actor.USER, "imported")
            paris, berlin = copies["The user lives in Paris"], copies["The user lives in Berlin"]
            assert paris.status == MemoryStatus.SUPERSEDED and paris.superseded_by == berlin.id
            assert berlin.meta["supersedes"] == paris.id and berlin.pinned is False
            conflict = copies["The user is called Jon"]
            assert conflict.meta["conflicts_with"] == copies["My name is John"].id
            # Profile b has no messages: the source is kept, unlinked, with its date.
            assert await service.sources(berlin.id) == []
            [unlinked] = berlin.meta["unlinked_sources"]
            assert unlinked["message_id"] == 1 and unlinked["created_at"]
            # Imported memories are searchable and the active ones are in the index.
            active = {m.id for m in copies.values() if m.status == MemoryStatus.ACTIVE}
            assert set(service.index.ids.tolist()) == active
            assert (await retrieve(service, "Where does the user live? Berlin"))[0] == berlin.id
            assert len(events.memories(ev.MemoryAdded)) == 8

            again = await import_memories(service, exported)
            assert again.to_dict() == {"imported": 0, "skipped": 8, "unlinked_sources": 0}
            assert await count_rows(store, "memories") == 8

    run(scenario())


def test_a_backup_restores_source_links_only_to_the_same_messages(tmp_path):
    async def scenario():
        async with memory_services(tmp_path) as (store, service, _events):
            conversations = ConversationRepository(store)
            conversation = await conversations.create()
            message = await conversations.add_message(conversation.id, "user", "hello")
            document = {
                "format": "acai-desktop-memories",
                "version": 1,
                "memories": [
                    {
                        "uid": "same",
                        "content": "From the very message",
                        "sources": [{"message_id": message.id, "created_at": message.created_at}],
                    },
                    {
                        "uid": "other",
                        "content": "From another profile's message 1",
                        "sources": [
                            {"message_id": message.id, "created_at": "2001-01-01T00:00:00"}
                        ],
                    },
                    {"uid": "bare", "content": "A bare id", "sources": [message.id, 77]},
                ],
            }
            path = tmp_path / "file.json"
            path.write_text(json.dumps(document), encoding="utf-8")
            report = await import_memories(service, path)
            assert report.to_dict() == {"imported": 3, "skipped": 0, "unlinked_sources": 2}
            items = by_content(await service.list(ALL))
            assert await service.sources(items["From the very message"].id) == [message.id]
            assert await service.sources(items["From another profile's message 1"].id) == []
            assert await service.sources(items["A bare id"].id) == [message.id]
            assert items["A bare id"].meta["unlinked_sources"] == [
                {"message_id": 77, "created_at": None}
            ]

    run(scenario())


def valid_document(**changes):
    memory = {"uid": "u1", "content": "I like tea", "confidence": 0.5}
    memory.update(changes)
    return {"format": "acai-desktop-memories", "version": 1, "memories": [memory]}


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        (
            '{"format": "acai-desktop-memories",\n  "version": 1\n  "memories": []}',
            "line 3, column 3",
        ),
        ("[1, 2, 3]", "(the whole file): Input should be a valid dictionary"),
        ('{"format": "something-else", "version": 1, "memories": []}', "not an ACAI Desktop"),
        (json.dumps({**valid_document(), "version": 2}), "from a newer ACAI Desktop (format 2"),
        (json.dumps({**valid_document(), "version": 0}), "version: Input should be 1"),
        (json.dumps(valid_document(confidence=1.5)), "memories[0].confidence: Input should be"),
        (json.dumps(valid_document(confidence="high")), "memories[0].confidence"),
        (json.dumps(valid_document(content="  ")), "memories[0].content: Value error, The memory"),
        (json.dumps(valid_document(content="a\u0000b")), "U+0000 (NUL)"),
        (json.dumps(valid_document(status="deleted")), "memories[0].status: Input should be"),
        (json.dumps(valid_document(colour="red")), "memories[0].colour: Extra inputs"),
        (json.dumps(valid_document(created_at="yesterday")), "not an ISO 8601 date-time"),
        (
            json.dumps(
                valid_document(
                    history=[{"at": "2026-01-01T00:00:00", "actor": "cat", "action": "x"}]
                )
            ),
            "memories[0].history[0].actor",
        ),
        (json.dumps(valid_document(sources=["D1:3"])), "memories[0].sources[0]"),
        (json.dumps(valid_document(superseded_by_uid="nowhere")), "no memory with uid 'nowhere'"),
    ],
)
def test_a_malformed_file_is_refused_with_its_place_and_changes_nothing(tmp_path, text, complaint):
    async def scenario():
        async with memory_services(tmp_path) as (store, service, events):
            await service.remember("Already here", explicit=True)
            events.clear()
            path = tmp_path / "bad.json"
            path.write_text(text, encoding="utf-8")
            with pytest.raises(InvalidInputError) as refused:
                await import_memories(service, path)
            assert complaint in str(refused.value)
            assert await count_rows(store, "memories") == 1
            assert await count_rows(store, "memory_events") == 1
            assert events.seen == []

    run(scenario())


def test_duplicate_uids_and_unreadable_files_are_refused(tmp_path):
    async def scenario():
        async with memory_services(tmp_path) as (store, service, _events):
            twice = valid_document()
            twice["memories"].append({"uid": "u1", "content": "Another"})
            path = tmp_path / "twice.json"
            path.write_text(json.dumps(twice), encoding="utf-8")
            with pytest.raises(InvalidInputError, match=r"memories\[1\]\.uid: 'u1' is already"):
                await import_memories(service, path)
            with pytest.raises(InvalidInputError, match="No such file"):
                await import_memories(service, tmp_path / "missing.json")
            binary = tmp_path / "binary.json"
            binary.write_bytes(b"\xff\xfe\x00garbage")
            with pytest.raises(InvalidInputError, match="not UTF-8"):
                await import_memories(service, binary)
            assert await count_rows(store, "memories") == 0

    run(scenario())


class EmbedderWithHook:
    """The test embedder, calling ``before(call_number)`` before each embedding call: an
    import embeds, then commits, batch by batch."""

    def __init__(self, inner, before) -> None:
        self.inner, self.before, self.calls = inner, before, 0
        self.name, self.dimensions = inner.name, inner.dimensions

    async def embed(self, texts):
        self.calls += 1
        self.before(self.calls)
        return await self.inner.embed(texts)


def many_memories_file(path, count: int):
    memories = [
        {"uid": f"u{n:04d}", "content": f"Fact number {n} about boats"} for n in range(count)
    ]
    path.write_text(
        json.dumps({"format": "acai-desktop-memories", "version": 1, "memories": memories})
    )
    return path


def test_a_long_import_commits_batch_by_batch_and_frees_the_write_lock_between(tmp_path):
    """Another program (the app's turn) can take the write lock between two batches, and
    sees the batches already committed."""
    exported = many_memories_file(tmp_path / "many.json", 25)
    seen_between_batches = []

    async def scenario():
        async with memory_services(tmp_path / "p") as (store, service, _events):
            database_path = store.path

            def probe(call: int) -> None:
                if call == 1:
                    return
                other = sqlite3.connect(database_path, timeout=0, isolation_level=None)
                try:
                    other.execute("BEGIN IMMEDIATE")  # raises "database is locked" if held
                    count = other.execute("SELECT count(*) FROM memories").fetchone()[0]
                    other.execute("ROLLBACK")
                    seen_between_batches.append(count)
                finally:
                    other.close()

            service.embedder = EmbedderWithHook(service.embedder, probe)
            report = await import_memories(service, exported, batch_size=10)
            return report, await count_rows(store, "memories")

    report, stored = run(scenario())
    assert seen_between_batches == [10, 20]
    assert report.imported == stored == 25


def test_an_import_stopped_half_way_is_completed_by_running_it_again_links_included(tmp_path):
    exported = tmp_path / "memories.json"

    class Killed(Exception):
        pass

    async def scenario():
        async with memory_services(tmp_path / "a") as (store, service, _events):
            await build_rich_profile(service, store)
            await export_memories(service, exported)
        contents = [m["content"] for m in json.loads(exported.read_text())["memories"]]
        stop_at = contents.index("The user lives in Berlin")  # Paris, before it, is stored
        assert contents.index("The user lives in Paris") < stop_at

        async with memory_services(tmp_path / "b") as (store, service, _events):
            embedder = service.embedder

            def die(call: int) -> None:
                if call == stop_at + 1:
                    raise Killed

            service.embedder = EmbedderWithHook(embedder, die)
            with pytest.raises(Killed):
                await import_memories(service, exported, batch_size=1)
            stored_first = await count_rows(store, "memories")
            service.embedder = embedder
            report = await import_memories(service, exported, batch_size=1)
            return stored_first, report, by_content(await service.list(ALL))

    stored_first, report, copies = run(scenario())
    assert stored_first == 3
    assert report.to_dict() == {"imported": 5, "skipped": 3, "unlinked_sources": 2}
    paris, berlin = copies["The user lives in Paris"], copies["The user lives in Berlin"]
    assert paris.status == MemoryStatus.SUPERSEDED and paris.superseded_by == berlin.id
    assert berlin.meta["supersedes"] == paris.id
    assert copies["The user is called Jon"].meta["conflicts_with"] == copies["My name is John"].id
