"""SummaryProcessor: folding old messages into a summary memory, through the real SDK."""

from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.records import MemoryKind
from acai_desktop.core.store.memories import MemoryFilter
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.fake_model import call_counts, fake_model
from tests.support.fake_openai import Reply


async def _fill(assistant, conversation_id, pairs):
    for i in range(pairs):
        await assistant.conversations.add_message(
            conversation_id, "user", f"Question {i}: tell me about topic number {i} in detail."
        )
        await assistant.conversations.add_message(
            conversation_id, "assistant", f"Answer {i}: " + "a long explanation " * 20
        )


def test_long_conversation_is_folded_into_a_summary_with_sources(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            processor = assistant.summary
            processor.budget_tokens, processor.keep_recent = 400, 4
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 10)
            summary = await processor.summarise_if_needed(conversation.id)
            transcript = await assistant.conversations.messages(conversation.id)
            unfolded = await assistant.conversations.messages(conversation.id, include_folded=False)
            sources = await assistant.memories.sources(summary.id)
            again = await processor.summarise_if_needed(conversation.id)
            return summary, transcript, unfolded, sources, again

    summary, transcript, unfolded, sources, again = run(scenario())
    assert summary.kind == MemoryKind.SUMMARY and summary.origin == "summary"
    assert summary.content.startswith("The user said: Question 0")
    assert len(transcript) == 20  # the transcript keeps every message
    assert [m.id for m in unfolded] == [m.id for m in transcript[-4:]]
    assert sources == [m.id for m in transcript[:16]]
    assert all(m.folded_into == summary.id for m in transcript[:16])
    assert again is None  # within budget now: no second summary
    assert call_counts(fake_openai)["summary"] == 1


def test_short_conversation_is_left_alone(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 2)
            return await assistant.summary.summarise_if_needed(conversation.id)

    assert run(scenario()) is None
    assert fake_openai.chat_requests() == []


def test_an_empty_summary_writes_nothing_and_fails_for_a_retry(tmp_path, fake_openai):
    fake_openai.script(Reply(text="   "))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            assistant.summary.budget_tokens = 300
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 8)
            try:
                await assistant.summary.summarise_if_needed(conversation.id)
            except Exception as error:  # the job runner turns this into a retry
                failure = error
            unfolded = await assistant.conversations.messages(conversation.id, include_folded=False)
            memories = await assistant.memories.list(MemoryFilter(statuses=None))
            return failure, unfolded, memories

    failure, unfolded, memories = run(scenario())
    assert "empty summary" in str(failure)
    assert len(unfolded) == 16 and memories == []


def test_crash_between_summary_and_fold_is_repaired_without_a_new_call(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            processor = assistant.summary
            processor.budget_tokens, processor.keep_recent = 400, 4
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 10)
            block = processor.block_to_fold(
                await assistant.conversations.messages(conversation.id, include_folded=False)
            )
            # What a crash right after storing the summary leaves behind:
            stored = await assistant.memories.remember(
                "The user asked about ten topics.",
                kind=MemoryKind.SUMMARY,
                origin="summary",
                actor="summary_processor",
                sources=[m.id for m in block],
                conversation_id=conversation.id,
                explicit=True,
            )
            repaired = await processor.summarise_if_needed(conversation.id)
            unfolded = await assistant.conversations.messages(conversation.id, include_folded=False)
            return stored, repaired, unfolded

    stored, repaired, unfolded = run(scenario())
    assert repaired.id == stored.id
    assert len(unfolded) == 4
    assert call_counts(fake_openai)["summary"] == 0


def test_block_choice_respects_budget_and_recent_messages(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 6)
            return await assistant.conversations.messages(conversation.id), assistant.summary

    messages, processor = run(scenario())
    total = sum(estimate_tokens(m.content) for m in messages)
    processor.budget_tokens = total  # exactly at budget: nothing to do
    assert processor.block_to_fold(messages) == []
    processor.budget_tokens, processor.keep_recent = total - 1, 5
    assert [m.id for m in processor.block_to_fold(messages)] == [m.id for m in messages[:7]]
