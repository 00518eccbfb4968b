"""``bench answers``: time to first token over consecutive messages, learning running.

A temporary profile, the configured model (default: the built-in Local server), one
conversation of N messages sent one after another as a user would (the next as soon as
the answer is complete, or after ``think_seconds``), with the job runner learning from
each message in the background exactly as in the app. Per message: the time from send
to the first token of the answer, and to its end; after the last, how long learning
takes to catch up. The goal: the last answer's first token comes no later than 1.2×
the first's (background learning never delays an answer).

Before the measured messages, one warm-up turn in a temporary chat (no learning, deleted
at close) pays the cold start — the model's weights paged in, the embedder loaded — so
message 1 is measured like the others; its time is reported on its own.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.jobs import JobStatus

#: What a new user tells a new assistant: facts worth learning, questions about them.
MESSAGES = (
    "Hi! I'm Sam and I'm allergic to peanuts.",
    "My sister Ana lives in Lisbon and I visit her every summer.",
    "I work as a nurse on night shifts.",
    "What could I cook for dinner tonight?",
    "I started learning the cello last month.",
    "Any tips for sleeping after a night shift?",
    "My favourite author is Ursula K. Le Guin.",
    "Suggest a book for my trip to Lisbon.",
    "I prefer tea to coffee.",
    "What do you remember about me?",
)
GOAL_RATIO = 1.2
LEARNING_TIMEOUT_S = 1800.0


async def measure_answers(
    data_dir: Path,
    overrides: ModelOverrides,
    *,
    messages: int = 10,
    think_seconds: float = 0.0,
    wait_for_learning: bool = True,
    progress: Callable[[str], None] | None = None,
    warm_up: bool = True,
) -> dict:
    profile = Profile.at(data_dir).ensure()
    opened_at = time.perf_counter()
    assistant = await open_assistant(profile, overrides)
    open_s = time.perf_counter() - opened_at
    rows: list[dict] = []
    first_token_at: list[float] = []

    def on_update(event: ev.MessageUpdated) -> None:
        if event.delta.delta and not first_token_at:
            first_token_at.append(time.perf_counter())

    unsubscribe = assistant.events.subscribe(ev.MessageUpdated, on_update)
    try:
        warm_up_s = None
        if warm_up:
            scratch = await assistant.conversations.create(temporary=True)
            sent_at = time.perf_counter()
            await assistant.orchestrator.send(scratch.id, "Hello!")
            warm_up_s = round((first_token_at or [time.perf_counter()])[0] - sent_at, 3)
            if progress is not None:
                progress(f"warm-up (cold start): first token after {warm_up_s} s")
        conversation = await assistant.conversations.create()
        for number in range(messages):
            text = MESSAGES[number % len(MESSAGES)]
            first_token_at.clear()
            waiting_jobs = len(await assistant._jobs.list([JobStatus.PENDING, JobStatus.RUNNING]))
            sent_at = time.perf_counter()
            result = await assistant.orchestrator.send(conversation.id, text)
            done_at = time.perf_counter()
            first = first_token_at[0] if first_token_at else done_at
            rows.append(
                {
                    "message": number + 1,
                    "first_token_s": round(first - sent_at, 3),
                    "answer_s": round(done_at - sent_at, 3),
                    "status": str(result.status),
                    "answer_chars": len(result.answer.content),
                    "prompt_tokens": result.prompt_tokens,
                    # What the turn brought (memories, recalled messages) is read anew in
                    # every turn: a first token that comes later with more of it waited
                    # for the reading, not for learning.
                    "data_tokens": result.usage.memory_tokens if result.usage else 0,
                    "data_items": len(result.memories_used),
                    "learning_jobs_waiting": waiting_jobs,
                }
            )
            if progress is not None:
                progress(_row_text(rows[-1]))
            if think_seconds:
                await asyncio.sleep(think_seconds)
        learning_s = None
        if wait_for_learning:
            started = time.perf_counter()
            try:
                await assistant.runner.wait_idle(timeout=LEARNING_TIMEOUT_S)
                learning_s = round(time.perf_counter() - started, 1)
            except TimeoutError:
                learning_s = None  # the jobs' table below says how far it got
        jobs = await assistant._jobs.list()
        # What learning kept (active memories: facts, notes, summaries), to tell a model
        # that answers fast because it learns nothing from one that learns.
        learned = len(assistant.memories.index)
        # With "Ask before remembering" (the bundled model's default) new facts wait
        # for the user's yes instead.
        suggested = len(await assistant.suggestions.pending(limit=10_000))
    finally:
        unsubscribe()
        await assistant.close()
    firsts = [row["first_token_s"] for row in rows]
    by_status: dict[str, int] = {}
    for job in jobs:
        by_status[str(job.status)] = by_status.get(str(job.status), 0) + 1
    return {
        "model": assistant.model_name,
        "open_s": round(open_s, 1),
        "warm_up_first_token_s": warm_up_s,
        "messages": rows,
        "first_token_median_s": round(statistics.median(firsts), 3) if firsts else None,
        "last_over_first": round(firsts[-1] / firsts[0], 2) if firsts and firsts[0] else None,
        # One first message is a noisy yardstick: the median of the first three is less so.
        "last_over_first_three_median": _over_median(firsts[-1:], firsts[:3]),
        "goal_ratio": GOAL_RATIO,
        "think_seconds": think_seconds,
        "learning_after_last_s": learning_s,
        "memories_learned": learned,
        "facts_suggested": suggested,
        "jobs": by_status,
    }


def _over_median(last: list[float], firsts: list[float]) -> float | None:
    median = statistics.median(firsts) if firsts else 0
    return round(last[0] / median, 2) if last and median else None


def _row_text(row: dict) -> str:
    return (
        f"{row['message']:>4} {row['first_token_s']:>14.2f} {row['answer_s']:>9.2f} "
        f"{row['prompt_tokens']:>11} {row['data_tokens']:>6}/{row['data_items']:<3} "
        f"{row['learning_jobs_waiting']:>13} "
        f"{row['answer_chars']:>6} {row['status']}"
    )


def print_progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def format_answers_report(report: dict) -> str:
    lines = [
        f"model: {report['model']}  (opened in {report['open_s']} s; think time "
        f"{report['think_seconds']} s between messages; warm-up turn's first token "
        f"{report['warm_up_first_token_s']} s)",
        f"{'msg':>4} {'first token s':>14} {'answer s':>9} {'prompt tok':>11} "
        f"{'data tok/items':>10} {'jobs waiting':>13} {'chars':>6} status",
    ]
    lines.extend(_row_text(row) for row in report["messages"])
    ratio = report["last_over_first"]
    verdict = "" if ratio is None else (" (met)" if ratio <= report["goal_ratio"] else " (missed)")
    lines.append(
        f"last/first time to first token: {ratio}  goal <= {report['goal_ratio']}{verdict}; "
        f"median {report['first_token_median_s']} s; last/median of the first three: "
        f"{report['last_over_first_three_median']}"
    )
    if report["learning_after_last_s"] is not None:
        lines.append(
            f"learning caught up {report['learning_after_last_s']} s after the last answer"
        )
    lines.append(
        f"jobs: {report['jobs']}; memories learned: {report['memories_learned']}; "
        f"facts waiting for a yes: {report['facts_suggested']}"
    )
    return "\n".join(lines)
