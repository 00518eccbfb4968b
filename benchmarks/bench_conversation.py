"""``python -m benchmarks bench conversation``: what the background processors cost and save.

Two measurements against whatever model is configured (the bundled Local model by
default), on a fresh temporary profile:

1. *Processor calls*: a scripted 50-message user conversation (facts, questions and
   small talk mixed as in real chats) goes through the FactLearner; we count
   messages stopped by the local gate, triage calls, extraction calls and reconcile calls.
2. *Prompt size*: a scripted 200-turn conversation is written turn by turn with the
   SummaryLearner running after each turn, as the job runner would; at turn 200 the
   orchestrator's own context builder assembles the prompt, and its token count is
   compared with sending the whole history.

The chat answers of part 2 are scripted text (the model is not asked to answer), so the
figures measure memory, not the chat model's verbosity.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from acai_desktop.core.assistant import Assistant, open_assistant
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.turns.planner import plan_message

FACTS = [
    "My name is Maya and I work as a data engineer in Lyon.",
    "I prefer Python for backend development, and Rust when speed matters.",
    "I'm vegetarian, so please don't suggest recipes with meat.",
    "My daughter Lena starts primary school in September.",
    "I'm allergic to penicillin.",
    "I plan to run the Lyon half marathon next spring.",
    "I usually work from home on Mondays and Fridays.",
    "My partner Tom is a nurse who works night shifts.",
    "I've been learning Japanese for two years.",
    "I moved to Lyon from Montreal in 2021.",
    "I drive an electric car, a Renault Zoe.",
    "I hate early morning meetings; I'm most productive after 10am.",
]
QUESTIONS = [
    "How do I reverse a linked list in place?",
    "What's the difference between a process and a thread?",
    "Can you explain what a B-tree is?",
    "What is the capital of Australia?",
    "How long should I boil an egg for a soft yolk?",
    "Write a haiku about autumn rain.",
    "What are good stretches after a long run?",
    "Summarise the plot of Dune in three sentences.",
    "How do I make a git branch track a remote branch?",
    "What does HTTP 429 mean?",
    "Give me three ideas for a rainy Sunday with a six-year-old.",
    "How does SQLite's WAL mode work?",
    "What is a good beginner Japanese textbook?",
    "Translate 'see you tomorrow' into French.",
    "Why is the sky blue?",
    "Compare PostgreSQL and SQLite for a small web app.",
    "What should I pack for a weekend in the Alps?",
    "How do I center a div with CSS grid?",
    "What's a healthy vegetarian source of iron?",
    "Explain big-O notation with an example.",
]
SMALL_TALK = [
    "okay", "thanks", "got it", "great, thanks!", "ok", "cool", "makes sense", "thank you",
    "nice", "sure", "perfect", "hi", "alright", "good morning", "sounds good", "understood",
    "lol", "awesome",
]  # fmt: skip


def scripted_messages(count: int, seed: int = 7) -> list[str]:
    """A realistic mix: about a quarter facts, two fifths questions, the rest small talk."""
    rng = random.Random(seed)
    pool = (FACTS * 4)[: max(1, count // 4)]
    pool += (QUESTIONS * 4)[: max(1, (count * 2) // 5)]
    pool += (SMALL_TALK * 4)[: max(0, count - len(pool))]
    pool = pool[:count]
    rng.shuffle(pool)
    return pool


def scripted_answer(question: str, turn: int) -> str:
    return (
        f"(turn {turn}) Here is a considered answer to '{question[:60]}'. "
        "It explains the main idea, gives a short example, notes one common pitfall, and "
        "ends with a suggestion for what to look at next if you want to go deeper."
    )


async def measure_processor_calls(assistant: Assistant, messages: list[str]) -> dict:
    conversation = await assistant.conversations.create(title="bench: processor calls")
    processor = assistant.critical_info
    started = time.perf_counter()
    for text in messages:
        message = await assistant.conversations.add_message(conversation.id, "user", text)
        await processor.process_message(message.id)
    facts = await assistant.memories.list(MemoryFilter(kinds=[MemoryKind.FACT], statuses=None))
    return {
        "messages": len(messages),
        "gated_without_a_call": processor.counts.gated,
        "triage_calls": processor.counts.triage,
        "extraction_calls": processor.counts.extraction,
        "reconcile_calls": processor.counts.reconcile,
        "facts_stored": len(facts),
        "seconds": round(time.perf_counter() - started, 1),
    }


async def measure_prompt_tokens(assistant: Assistant, turns: int) -> dict:
    conversation = await assistant.conversations.create(title="bench: prompt size")
    questions = scripted_messages(turns, seed=11)
    summary_calls = 0
    started = time.perf_counter()
    for turn, text in enumerate(questions[:-1], start=1):
        await assistant.conversations.add_message(conversation.id, "user", text)
        await assistant.conversations.add_message(
            conversation.id, "assistant", scripted_answer(text, turn)
        )
        if await assistant.summary.summarise_if_needed(conversation.id) is not None:
            summary_calls += 1
    last = await assistant.conversations.add_message(conversation.id, "user", questions[-1])
    prompts = assistant.orchestrator.prompts
    context, _ = await prompts.build(
        await assistant.conversations.get(conversation.id), last, plan_message(last.content)
    )
    history = await assistant.conversations.messages(conversation.id)
    whole = estimate_message_tokens(prompts.system_prompt) + sum(
        estimate_message_tokens(m.content) for m in history
    )
    return {
        "turns": turns,
        "tokens_whole_history": whole,
        "tokens_sent": context.tokens,
        "ratio": round(context.tokens / whole, 3),
        "summaries": summary_calls,
        "budget_tokens": prompts.budget_tokens,
        "seconds": round(time.perf_counter() - started, 1),
    }


async def run_conversation_benchmark(
    overrides: ModelOverrides, *, messages: int = 50, turns: int = 200
) -> dict:
    with tempfile.TemporaryDirectory(prefix="acai-bench-") as data_dir:
        profile = Profile.at(Path(data_dir))
        assistant = await open_assistant(profile, overrides, start_jobs=False)
        try:
            calls = await measure_processor_calls(assistant, scripted_messages(messages))
            tokens = await measure_prompt_tokens(assistant, turns)
            model = assistant.client.model_for("chat")
            provider = str(assistant.settings.provider)
        finally:
            await assistant.close()
    return {"provider": provider, "model": model, "processor_calls": calls, "prompt": tokens}
