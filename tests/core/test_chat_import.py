"""Importing ChatGPT and Claude exports: the branch shown last, titles, dates and
authors kept, searchable and recalled at once, no duplicates, a bad file writes nothing,
learning within the chosen budget, paused, resumed and carried across a restart."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.claude import parse_claude_export
from acai_desktop.core.conversations.chat_import.importer import import_conversations, read_export
from acai_desktop.core.conversations.chat_import.model import ImportFileError
from acai_desktop.core.conversations.chat_import.service import ConversationImports
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus, MemoryAdded
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMessage
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.conversation_search import search_conversations
from acai_desktop.core.store.imported_conversations import LEARN_IMPORTED_JOB
from acai_desktop.core.store.jobs import JobRepository
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.memory import count_rows, memory_services
from tests.support.recall_index import assert_index_is_the_view

EXPORTS = Path(__file__).parents[1] / "fixtures" / "chat_exports"
CHATGPT = EXPORTS / "chatgpt_conversations.json"
CLAUDE = EXPORTS / "claude_conversations.json"
NOW = datetime(2025, 12, 1, tzinfo=UTC)


def _rows(store, sql, params=()):
    return store.run(lambda db: db.execute(sql, list(params)).fetchall())


async def _import(data_dir, source, path, budget="all", now=NOW):
    async with memory_services(data_dir) as (store, service, _log):
        conversations = read_export(source, path)
        return await import_conversations(
            store, service, EventBus(), conversations, LearningBudget.parse(budget), now=now
        )


def test_chatgpt_keeps_the_branch_shown_last_and_only_the_words_shown():
    kyoto, sourdough, untitled = read_export("chatgpt", CHATGPT)
    assert [m.source_id for m in kyoto.messages] == [
        "chatgpt:u-1", "chatgpt:a-1", "chatgpt:u-2b", "chatgpt:a-2b",
    ]  # fmt: skip
    assert kyoto.messages[2].content.startswith("Ines is vegetarian.")  # the image part left out
    assert [(m.role, m.author, m.model) for m in kyoto.messages[:2]] == [
        ("user", None, None), ("assistant", "ChatGPT", "gpt-4o"),
    ]  # fmt: skip
    assert kyoto.title == "Planning a trip to Kyoto"
    assert kyoto.created_at == "2024-05-01T08:00:00.000000+00:00"
    assert kyoto.messages[0].created_at == "2024-05-01T08:01:00.250000+00:00"
    assert kyoto.source_id == "chatgpt:6633a1f0-0c4e-8001-9d2b-kyoto0000001"
    assert len(sourdough.messages) == 2
    # Untitled: named by its first question, as the app names its own chats.
    assert untitled.title == "How do I undo the last git commit but keep my changes?"


def test_claude_reads_text_blocks_and_leaves_attachments_out():
    marathon, cat, _bike = read_export("claude", CLAUDE)
    assert [m.source_id[-1] for m in marathon.messages] == ["1", "2", "4"]
    assert marathon.messages[1].content.startswith("Here is a 16-week plan")
    assert [(m.role, m.author) for m in marathon.messages] == [
        ("user", None), ("assistant", "Claude"), ("assistant", "Claude"),
    ]  # fmt: skip
    assert marathon.created_at == "2025-03-02T08:15:04.118261+00:00"
    assert cat.title.startswith("My cat Miso is allergic to chicken")


def test_claude_keeps_the_branch_shown_last():
    *_, bike = read_export("claude", CLAUDE)
    assert [m.content[:30] for m in bike.messages] == [
        "I have a budget of 1500 euros ",
        "At that budget a good aluminiu",
        "I ride 200 km a week in the hi",
        "For 200 km a week of climbing,",
    ]  # the edited question and the draft answer to it are left behind


def test_without_a_named_leaf_the_claude_branch_written_last_is_kept():
    data = json.loads(CLAUDE.read_text())
    del data[2]["current_leaf_message_uuid"]
    data[2]["chat_messages"].reverse()  # the order of the list does not decide
    *_, bike = parse_claude_export(data)
    assert [m.source_id[-1] for m in bike.messages] == ["1", "2", "5", "6"]


def test_imported_chats_are_searchable_and_recalled_at_once(tmp_path):
    async def scenario():
        report = await _import(tmp_path, "chatgpt", CHATGPT)
        async with memory_services(tmp_path) as (store, service, _log):
            conversations = await _rows(
                store, "SELECT title, created_at, updated_at FROM conversations ORDER BY id"
            )
            authors = await _rows(store, "SELECT role, author, model FROM messages ORDER BY id")
            found = await store.run(search_conversations, "shojin")
            vectors = await count_rows(store, "message_embeddings")
            retriever = HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            )
            hits = await retriever.search("vegetarian restaurant for my sister in Kyoto", 10)
        return report, conversations, authors, found, vectors, hits

    report, conversations, authors, found, vectors, hits = run(scenario())
    assert (report.conversations, report.messages) == (3, 8)
    assert conversations[0] == (
        "Planning a trip to Kyoto",
        "2024-05-01T08:00:00.000000+00:00",
        "2024-05-01T08:40:00.500000+00:00",
    )
    assert authors[1] == ("assistant", "ChatGPT", "gpt-4o")
    assert {hit.message_id is not None for hit in found} == {True}
    assert any("shojin" in hit.snippet for hit in found)
    assert vectors == 8  # every imported message has its vector: recalled by meaning now
    recalled = [hit for hit in hits if isinstance(hit, RetrievedMessage)]
    vegetarian = [hit for hit in recalled if "Ines is vegetarian" in hit.message.content]
    assert vegetarian and "semantic" in vegetarian[0].reasons


def test_importing_the_same_export_again_adds_nothing(tmp_path):
    async def scenario():
        first = await _import(tmp_path, "claude", CLAUDE)
        second = await _import(tmp_path, "claude", CLAUDE)
        async with memory_services(tmp_path) as (store, _service, _log):
            counts = [await count_rows(store, t) for t in ("conversations", "messages", "jobs")]
        return first, second, counts

    first, second, counts = run(scenario())
    assert (first.conversations, first.messages, first.learning_jobs) == (3, 9, 4)
    assert (second.conversations, second.messages, second.learning_jobs) == (0, 0, 0)
    assert (second.skipped_conversations, second.skipped_messages) == (3, 9)
    assert counts == [3, 9, 4]


def test_a_continued_chat_gets_only_its_new_messages(tmp_path):
    data = json.loads(CLAUDE.read_text())
    data[1]["chat_messages"].append(
        {"uuid": "6f2e1d3b-2222-4bbb-8ccc-000000000003", "sender": "human",
         "text": "Duck it is, thanks!", "created_at": "2025-06-11T07:00:00Z"}
    )  # fmt: skip
    later = tmp_path / "later.json"
    later.write_text(json.dumps(data))

    async def scenario():
        await _import(tmp_path, "claude", CLAUDE)
        report = await _import(tmp_path, "claude", later)
        async with memory_services(tmp_path) as (store, _service, _log):
            last = await _rows(
                store, "SELECT content FROM messages WHERE conversation_id = 2 ORDER BY id"
            )
            chain = await _rows(
                store,
                "SELECT id, parent_id FROM messages WHERE conversation_id = 2 ORDER BY id",
            )
        return report, last, chain

    report, last, chain = run(scenario())
    assert (report.conversations, report.messages, report.skipped_messages) == (0, 1, 9)
    assert last[-1] == ("Duck it is, thanks!",)
    # One shown path, the continuation included (answer versions, docs/architecture.md).
    ids = [row[0] for row in chain]
    assert [row[1] for row in chain] == [None, *ids[:-1]]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d[2].update(current_node="nowhere"), "conversation 3"),
        (lambda d: d[1]["mapping"]["r-1"].update(parent="missing"), "conversation 2"),
        (lambda d: d[2]["mapping"]["q-3"]["message"]["content"].update(parts="text"),
         "conversation 3"),
        (lambda d: d[0]["mapping"]["u-1"]["message"].update(create_time="May"), "conversation 1"),
    ],
)  # fmt: skip
def test_a_bad_record_names_itself_and_nothing_is_written(tmp_path, change, named):
    data = json.loads(CHATGPT.read_text())
    change(data)
    bad = tmp_path / "conversations.json"
    bad.write_text(json.dumps(data))

    async def scenario():
        with pytest.raises(ImportFileError) as raised:
            await _import(tmp_path, "chatgpt", bad)
        async with memory_services(tmp_path) as (store, _service, _log):
            return str(raised.value), await count_rows(store, "conversations")

    message, conversations = run(scenario())
    assert message.startswith(named) and "\n" not in message
    assert conversations == 0  # not even the good conversations before it


def test_a_truncated_export_is_refused_whole(tmp_path):
    truncated = tmp_path / "conversations.json"
    truncated.write_text(CLAUDE.read_text()[:1500])

    async def scenario():
        with pytest.raises(ImportFileError, match="truncated") as raised:
            await _import(tmp_path, "claude", truncated)
        async with memory_services(tmp_path) as (store, _service, _log):
            return str(raised.value), await count_rows(store, "messages")

    message, messages = run(scenario())
    assert "line" in message and "\n" not in message and messages == 0


def test_the_learning_budget_picks_the_users_messages_it_covers(tmp_path):
    async def scenario():
        recent = await _import(tmp_path / "recent", "claude", CLAUDE, "months:6")
        nothing = await _import(tmp_path / "none", "claude", CLAUDE, "none")
        async with memory_services(tmp_path / "recent") as (store, _service, _log):
            learned = await _rows(
                store,
                "SELECT m.content FROM jobs AS j JOIN messages AS m "
                "ON m.id = json_extract(j.payload, '$.message_id') WHERE j.kind = ?",
                [LEARN_IMPORTED_JOB],
            )
        return recent, nothing, learned

    recent, nothing, learned = run(scenario())
    # Six months before 1 December 2025: June's message, not March's; never an answer.
    assert learned == [("My cat Miso is allergic to chicken. What protein should I look for "
                        "in cat food?",)]  # fmt: skip
    assert (recent.learning_jobs, nothing.learning_jobs, nothing.messages) == (1, 0, 9)


@pytest.mark.parametrize("text", ["some", "months:0", "months:x", ""])
def test_a_learning_budget_must_be_all_none_or_months(text):
    with pytest.raises(InvalidInputError, match="all, none, or months:N"):
        LearningBudget.parse(text)


def test_learning_from_an_import_runs_pauses_and_resumes_across_a_restart(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            paused = await assistant.imports.pause_learning()
            report = await assistant.imports.import_file(
                "claude", CLAUDE, LearningBudget.parse("all")
            )
            # Paused: queued, not run, and so it stays when the app closes.
            waiting = await assistant.imports.learning_progress()
        async with running_assistant(tmp_path, fake_openai) as assistant:
            added = []
            assistant.events.subscribe(MemoryAdded, added.append)
            after_restart = await assistant.imports.learning_progress()
            await assistant.imports.resume_learning()
            jobs = await assistant._jobs.list()
            await assistant.runner.wait_for([job.id for job in jobs], timeout=60)
            done = await assistant.imports.learning_progress()
            facts = [m.content for m in await assistant.memories.list()]
            # Told by its progress, not memory by memory (no Undo for whichever came last).
            told = [event.told for event in added]
            said = await assistant.memories.remember("The user likes figs", explicit=True)
            told_after = [event.told for event in added if event.memory.id == said.id]
        return paused, report, waiting, after_restart, done, facts, told, told_after

    paused, report, waiting, after_restart, done, facts, told, told_after = run(scenario())
    assert told and not any(told)
    assert told_after == [True]  # outside the import's learning, news is told again
    assert paused.paused and report.learning_jobs == 4
    assert (waiting.done, waiting.waiting, waiting.paused) == (0, 4, True)
    assert (after_restart.done, after_restart.waiting, after_restart.paused) == (0, 4, True)
    assert (done.done, done.waiting, done.paused) == (4, 0, False)
    assert any(fact.startswith("The user lives in Porto") for fact in facts)


def test_the_import_command_beside_nothing_else(tmp_path, capsys):
    from acai_desktop.cli import main

    code = main(["import", "chatgpt", str(CHATGPT), "--data-dir", str(tmp_path), "--learn", "none"])
    out = capsys.readouterr().out
    again = main(["import", "chatgpt", str(CHATGPT), "--data-dir", str(tmp_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    status = main(["import", "status", "--data-dir", str(tmp_path)])
    status_text = capsys.readouterr().out
    assert (code, again, status) == (0, 0, 0)
    assert "Imported 3 conversations (8 messages) from ChatGPT." in out
    assert report["conversations"] == 0 and report["skipped_conversations"] == 3
    assert "No learning from imported conversations is queued." in status_text


def test_the_import_command_says_what_is_wrong_in_one_line(tmp_path, capsys):
    from acai_desktop.cli import main

    bad = tmp_path / "conversations.json"
    shutil.copy(CLAUDE, bad)
    bad.write_text(bad.read_text().replace('"sender": "assistant"', '"sender": "robot"', 1))
    code = main(["import", "claude", str(bad), "--data-dir", str(tmp_path / "profile")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("acai-desktop: error: conversation 1 ('Marathon training plan')")
    assert "sender 'robot' is not human or assistant" in err and "\n" not in err


def test_a_conversation_without_words_is_left_out(tmp_path):
    data = json.loads(CHATGPT.read_text())
    image_only = {"id": "empty-1", "title": "Image only", "create_time": 1732000000.0,
                  "mapping": {"r": {"id": "r", "message": None, "parent": None,
                                    "children": []}}, "current_node": "r"}  # fmt: skip
    data.insert(1, image_only)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(data))
    titles = [conversation.title for conversation in read_export("chatgpt", export)]
    assert len(titles) == 3 and "Image only" not in titles


def test_an_unknown_export_is_refused():
    with pytest.raises(ImportFileError, match="chatgpt or claude"):
        read_export("gemini", CLAUDE)


def test_the_service_imports_beside_a_profile_without_the_window(tmp_path):
    async def scenario():
        async with memory_services(tmp_path) as (store, service, _log):
            imports = ConversationImports(store, service, EventBus(), JobRepository(store))
            report = await imports.import_file("chatgpt", CHATGPT, LearningBudget.parse("all"))
            return report, await imports.learning_progress()

    report, progress = run(scenario())
    assert report.learning_jobs == 4 and (progress.waiting, progress.paused) == (4, False)


def test_the_full_text_index_is_as_the_triggers_keep_it(tmp_path):
    """New conversations are indexed once at the end of their batch, not by the insert
    trigger; the index must come out the same, and the trigger must be back after."""
    data = json.loads(CLAUDE.read_text())
    data[0]["chat_messages"].append(
        {"uuid": "5e1d0c2a-1111-4aaa-8bbb-000000000005", "sender": "human",
         "text": "Thanks, week one starts Monday.", "created_at": "2025-03-03T07:00:00Z"}
    )  # fmt: skip
    continued = tmp_path / "continued.json"
    continued.write_text(json.dumps(data))

    async def scenario():
        await _import(tmp_path, "claude", CLAUDE)
        await _import(tmp_path, "chatgpt", CHATGPT)
        await _import(tmp_path, "claude", continued)  # one chat continued: the trigger's way
        async with memory_services(tmp_path) as (store, _service, _log):
            conversation = await ConversationRepository(store).create()
            await ConversationRepository(store).add_message(conversation.id, "user", "Hello")
            await store.run(assert_index_is_the_view)
            return await _rows(store, "SELECT count(*) FROM message_recall_rows")

    assert run(scenario()) == [(19,)]
