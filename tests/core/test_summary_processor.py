"""SummaryLearner: folding the messages the prompt has left out into a summary memory,
through the real SDK."""

from acai_desktop.core.memory.prompt_history import CUT_TO_SHARE, left_out_of_prompt
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.store.memories import MemoryFilter
from acai_lab.scripted_model import call_counts, fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant


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
            processor.prompt_room = 400
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 10)
            before = await assistant.conversations.messages(conversation.id)
            folded = left_out_of_prompt(before, processor.prompt_room)
            summary = await processor.summarise_if_needed(conversation.id)
            transcript = await assistant.conversations.messages(conversation.id)
            unfolded = await assistant.conversations.messages(conversation.id, include_folded=False)
            sources = await assistant.memories.sources(summary.id)
            again = await processor.summarise_if_needed(conversation.id)
            return summary, transcript, unfolded, sources, again, folded

    summary, transcript, unfolded, sources, again, folded = run(scenario())
    assert summary.kind == MemoryKind.SUMMARY and summary.origin == "summary"
    assert summary.content.startswith("The user said: Question 0")
    assert len(transcript) == 20  # the transcript keeps every message
    assert (
        2 <= len(folded) < 20
        and [m.id for m in folded] == [m.id for m in transcript][: len(folded)]
    )
    assert [m.id for m in unfolded] == [m.id for m in transcript[len(folded) :]]
    assert sources == [m.id for m in folded]
    assert all(m.folded_into == summary.id for m in transcript[: len(folded)])
    assert again is None  # the rest is all in the prompt: no second summary
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
            assistant.summary.prompt_room = 300
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
            processor.prompt_room = 400
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
            return stored, repaired, unfolded, block

    stored, repaired, unfolded, block = run(scenario())
    assert repaired.id == stored.id
    assert len(unfolded) == 20 - len(block) and block
    assert call_counts(fake_openai)["summary"] == 0


def test_the_block_is_what_the_prompt_left_out_so_folding_keeps_the_prompts_start(
    tmp_path, fake_openai
):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            await _fill(assistant, conversation.id, 6)
            return await assistant.conversations.messages(conversation.id), assistant.summary

    messages, processor = run(scenario())
    costs = [estimate_message_tokens(m.content) for m in messages]
    processor.prompt_room = sum(costs)  # the whole conversation fits: nothing to do
    assert processor.block_to_fold(messages) == []
    processor.prompt_room = sum(costs) - 1  # one token short: the prompt cut its oldest
    block = processor.block_to_fold(messages)
    assert [m.id for m in block] == [m.id for m in messages[: len(block)]]
    kept = costs[len(block) :]
    assert sum(kept) <= processor.prompt_room * CUT_TO_SHARE < sum(costs[len(block) - 1 :])
    # Once folded, the rest is the prompt's history as it was: nothing more to fold.
    assert processor.block_to_fold(messages[len(block) :]) == []
