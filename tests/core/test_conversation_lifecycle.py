"""Renaming and deleting conversations: the rules for a title, and a delete that
removes the chat but keeps every memory learned from it."""

from __future__ import annotations

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.export import as_json
from acai_desktop.core.conversations.service import ConversationService
from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.memory.retrieval.results import RetrievedMemory
from acai_desktop.core.records.conversations import AnswerSource
from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.records.memories import Actor, MemoryKind, Origin
from acai_desktop.core.store.conversation_deletion import SOURCE_DELETED_ACTION
from acai_desktop.core.store.conversations import MAX_TITLE_CHARS
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import running_assistant


def service_of(assistant) -> ConversationService:
    return assistant.conversations


def heard(assistant, *event_types):
    news = []
    for event_type in event_types:
        assistant.events.subscribe(event_type, news.append)
    return news


def test_rename_cleans_the_title_keeps_the_order_and_announces_it(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            service = service_of(assistant)
            news = heard(assistant, ev.ConversationChanged)
            conversation = await assistant.conversations.create()
            await assistant.conversations.add_message(conversation.id, "user", "Hello there")
            before = await assistant.conversations.get(conversation.id)
            renamed = await service.rename(conversation.id, "  Trip\n planning  ")
            longest = await service.rename(conversation.id, "x" * MAX_TITLE_CHARS)
            refusals = []
            for bad in ("", "   \n ", "x" * (MAX_TITLE_CHARS + 1), None):
                with pytest.raises(InvalidInputError) as caught:
                    await service.rename(conversation.id, bad)
                refusals.append(str(caught.value))
            with pytest.raises(NotFoundError):
                await service.rename(conversation.id + 1, "Elsewhere")
            stored = await assistant.conversations.get(conversation.id)
            return before, renamed, longest, stored, refusals, news

    before, renamed, longest, stored, refusals, news = run(scenario())
    assert before.title == "Hello there"
    assert renamed.title == "Trip planning"
    assert renamed.updated_at == before.updated_at  # a rename is not activity
    assert longest.title == "x" * MAX_TITLE_CHARS
    assert stored.title == "x" * MAX_TITLE_CHARS  # refused renames changed nothing
    assert "empty" in refusals[0] and "empty" in refusals[1]
    assert f"at most {MAX_TITLE_CHARS}" in refusals[2]
    assert news == [ev.ConversationChanged(renamed), ev.ConversationChanged(longest)]


def test_delete_removes_the_chat_and_keeps_what_was_learned_from_it(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversations, memories = assistant.conversations, assistant.memories
            service = service_of(assistant)
            gone = await conversations.create()
            kept = await conversations.create()
            a1 = await conversations.add_message(gone.id, "user", "I drink green tea daily.")
            a2 = await conversations.add_message(gone.id, "assistant", "Noted, green tea.")
            b1 = await conversations.add_message(kept.id, "user", "I live in Lisbon.")
            b2 = await conversations.add_message(kept.id, "assistant", "Lisbon is lovely.")
            fact = await memories.remember(
                "The user drinks green tea daily",
                origin=Origin.CRITICAL_INFO,
                actor=Actor.CRITICAL_INFO_PROCESSOR,
                sources=[a1.id],
                conversation_id=gone.id,
                explicit=True,
            )
            summary = await memories.remember(
                "The user talked about drinking green tea every day.",
                kind=MemoryKind.SUMMARY,
                origin=Origin.SUMMARY,
                actor=Actor.SUMMARY_PROCESSOR,
                sources=[a1.id, a2.id],
                conversation_id=gone.id,
                explicit=True,
            )
            await assistant._conversation_repository.fold([a1.id, a2.id], summary.id)
            both = await memories.remember(
                "The user likes tea in Lisbon cafes", sources=[a1.id, b1.id], explicit=True
            )
            other = await memories.remember(
                "The user lives in Lisbon",
                sources=[b1.id],
                conversation_id=kept.id,
                explicit=True,
            )
            await assistant._provenance.record(
                a2.id, [AnswerSource(a2.id, fact.id, 1, 0.9, ["lexical"])]
            )
            await assistant._provenance.record(
                b2.id,
                [
                    AnswerSource(b2.id, fact.id, 1, 0.8, ["semantic"]),
                    AnswerSource(b2.id, other.id, 2, 0.7, ["lexical"]),
                ],
            )
            await assistant._jobs.enqueue("critical_info", {"message_id": a1.id}, gone.id)
            failed = await assistant._jobs.enqueue("summary", {"conversation_id": gone.id}, gone.id)
            await assistant._jobs.fail(failed.id, "boom", None)
            other_job = await assistant._jobs.enqueue(
                "critical_info", {"message_id": b1.id}, kept.id
            )

            news = heard(assistant, ev.ConversationRemoved, ev.MemoryChanged)
            deleted = await service.delete(gone.id)

            with pytest.raises(NotFoundError):
                await conversations.get(gone.id)
            with pytest.raises(NotFoundError):
                await service.delete(gone.id)
            after = {m.id: await memories.get(m.id) for m in (fact, summary, both, other)}
            sources = {m.id: await memories.sources(m.id) for m in (fact, summary, both, other)}
            history = await memories.history(fact.id)
            found = await assistant.retriever.search("green tea", k=5)
            fts = await assistant._store.run(
                lambda db: [
                    r[0]
                    for r in db.execute(
                        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'tea' "
                        "ORDER BY rowid"
                    ).fetchall()
                ]
            )
            lookup = memories.index.lookup([fact.id, summary.id, other.id], None)
            jobs = await assistant._jobs.list()
            return {
                "ids": (gone, kept, a1, a2, b1, b2, fact, summary, both, other, other_job),
                "deleted": deleted,
                "after": after,
                "sources": sources,
                "history": history,
                # Memories only: whether the kept chat's messages were embedded by now
                # depends on when the background upkeep ran.
                "found": [r.memory.id for r in found if isinstance(r, RetrievedMemory)],
                "fts": fts,
                "index_conversations": lookup.conversation_id.tolist(),
                "jobs": [(j.id, j.status) for j in jobs],
                "remaining_messages": [m.id for m in await conversations.messages(kept.id)],
                "answers_using_fact": await assistant._provenance.answers_using_memory(fact.id),
                "a2_sources": await assistant._provenance.sources_of_answer(a2.id),
                "news": news,
                "listed": [c.id for c in await conversations.list()],
            }

    out = run(scenario())
    gone, kept, a1, a2, b1, b2, fact, summary, both, other, other_job = out["ids"]
    deleted = out["deleted"]
    assert deleted.message_ids == [a1.id, a2.id]
    assert out["listed"] == [kept.id]
    assert out["remaining_messages"] == [b1.id, b2.id]
    # Every memory stays, word for word and active; the deleted chat's lose its id.
    for memory in (fact, summary, both, other):
        assert out["after"][memory.id].content == memory.content
        assert out["after"][memory.id].status == "active"
    assert out["after"][fact.id].conversation_id is None
    assert out["after"][summary.id].conversation_id is None
    assert out["after"][other.id].conversation_id == kept.id
    # Links to the deleted messages go; links to the other chat's stay.
    assert out["sources"] == {fact.id: [], summary.id: [], both.id: [b1.id], other.id: [b1.id]}
    assert [a.message_id for a in out["answers_using_fact"]] == [b2.id]
    assert out["a2_sources"] == []
    # Not silently: the memory's history names the deleted conversation.
    last = out["history"][-1]
    assert last.action == SOURCE_DELETED_ACTION and last.actor == "user"
    assert last.before["conversation_id"] == gone.id
    assert last.before["messages"] == [a1.id]
    # Still found by their words and their meaning.
    assert fact.id in out["found"] and summary.id in out["found"]
    assert {fact.id, summary.id, both.id} <= set(out["fts"])
    assert out["index_conversations"] == [-1, -1, kept.id]
    # Jobs of the deleted chat go; the other chat's stays.
    assert out["jobs"] == [(other_job.id, JobStatus.PENDING)]
    assert deleted.jobs_removed == 2
    changed = [e.memory.id for e in out["news"] if isinstance(e, ev.MemoryChanged)]
    assert sorted(changed) == sorted([fact.id, summary.id, both.id])
    assert out["news"][-1] == ev.ConversationRemoved(gone.id)


def test_processor_jobs_of_a_deleted_chat_end_done_without_retrying(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            message = await assistant.conversations.add_message(
                conversation.id, "user", "My sister is called Ana and lives in Porto."
            )
            critical = await assistant._jobs.enqueue(
                "critical_info", {"message_id": message.id}, conversation.id
            )
            summary = await assistant._jobs.enqueue(
                "summary", {"conversation_id": conversation.id}, conversation.id
            )
            # Both were already running when the user deleted the chat.
            await assistant._jobs.claim_next()
            await assistant._jobs.claim_next()
            await service_of(assistant).delete(conversation.id)
            outcome = await assistant.critical_info.process_message(message.id)
            # The runner puts interrupted jobs back at start and runs them.
            await assistant.runner.start()
            finished = await assistant.runner.wait_for([critical.id, summary.id], timeout=30)
            # The model's calls (not the start's question about its context window).
            calls = fake_openai.chat_requests() + fake_openai.embedding_requests()
            return outcome, finished, len(calls)

    outcome, finished, model_calls = run(scenario())
    assert outcome.reason == "the message was deleted"
    assert outcome.triage_called is False
    assert [(j.status, j.attempts, j.last_error) for j in finished] == [
        (JobStatus.DONE, 1, None),
        (JobStatus.DONE, 1, None),
    ]
    assert model_calls == 0


def test_pinned_chats_come_first_and_pinning_is_not_activity(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            changed: list = []
            assistant.events.subscribe(ev.ConversationChanged, changed.append)
            older = await assistant.conversations.create("Older")
            newer = await assistant.conversations.create("Newer")
            await assistant.conversations.add_message(newer.id, "user", "hi")
            service = assistant.conversations
            pinned = await service.pin(older.id)
            order_pinned = [c.title for c in await assistant.conversations.list()]
            exported = as_json(pinned, [])
            unpinned = await service.unpin(older.id)
            order_after = [c.title for c in await assistant.conversations.list()]
            return older, pinned, unpinned, order_pinned, order_after, exported, changed

    older, pinned, unpinned, order_pinned, order_after, exported, changed = run(scenario())
    assert order_pinned == ["Older", "Newer"] and order_after == ["Newer", "Older"]
    assert pinned.pinned and not unpinned.pinned
    assert pinned.updated_at == older.updated_at  # pinning doesn't move it by activity
    assert [e.conversation.pinned for e in changed] == [True, False]
    assert exported["conversation"]["pinned"] is True
