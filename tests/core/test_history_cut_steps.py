"""Older messages leave the prompt a few at a time, so the prompt's start stays the same
for several turns and a local server reuses what it has already read."""

from __future__ import annotations

import itertools

from acai_desktop.core.memory.context_builder import HISTORY_CUT_STEP, build_context
from tests.core.test_context_builder import message

WORDS = "a sentence of about twenty tokens about the user's day and plans for the week " * 2


def first_kept(turn: int) -> tuple[str, int]:
    """The prompt's first history message at ``turn`` (two messages per turn before it)."""
    history = [
        message(n, "user" if n % 2 else "assistant", f"message {n}: {WORDS}")
        for n in range(1, 2 * turn + 1)
    ]
    context = build_context(
        system_prompt="You are ACAI.",
        user_message="and now?",
        budget_tokens=600,
        recent_messages=history,
        history_cut_step=HISTORY_CUT_STEP,
    )
    kept = context.messages[1:-1]
    dropped = len(history) - len(kept)
    assert dropped == context.dropped.messages
    assert [m["content"] for m in kept] == [m.content for m in history[dropped:]]  # no holes
    return kept[0]["content"].split(":")[0], dropped


def test_the_oldest_messages_go_in_steps_so_the_start_stays_put():
    starts = [first_kept(turn) for turn in range(8, 20)]
    assert all(dropped % HISTORY_CUT_STEP == 0 for _, dropped in starts)
    changes = sum(1 for a, b in itertools.pairwise(starts) if a[0] != b[0])
    # Two messages a turn, HISTORY_CUT_STEP at a time: the start moves every third turn.
    assert changes <= len(starts) * 2 // HISTORY_CUT_STEP + 1
    assert changes >= 1  # it does move on as the conversation grows


def test_without_a_step_the_history_keeps_all_that_fits():
    history = [message(n, "user", f"message {n}: {WORDS}") for n in range(1, 30)]
    context = build_context(
        system_prompt="You are ACAI.",
        user_message="and now?",
        budget_tokens=600,
        recent_messages=history,
    )
    stepped = build_context(
        system_prompt="You are ACAI.",
        user_message="and now?",
        budget_tokens=600,
        recent_messages=history,
        history_cut_step=HISTORY_CUT_STEP,
    )
    assert len(context.messages) >= len(stepped.messages)
    assert context.dropped.messages < stepped.dropped.messages
