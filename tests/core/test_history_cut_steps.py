"""Older messages leave the prompt many at a time, and what each turn finds for its
question comes after the history: the prompt's start stays the same for several turns,
so a server that keeps what it read of the last prompt reads only what is new."""

from __future__ import annotations

import itertools

from acai_desktop.core.memory.context_builder import build_context
from acai_desktop.core.memory.prompt_history import CUT_TO_SHARE, TURN_SHARE, history_start
from acai_desktop.core.memory.tokens import estimate_message_tokens
from tests.core.test_context_builder import hit, memory, message

WORDS = "a sentence of about twenty tokens about the user's day and plans for the week " * 2
SYSTEM = "You are ACAI."
BUDGET = 2000
#: What the history may take of that budget.
ROOM = BUDGET - estimate_message_tokens(SYSTEM) - int(BUDGET * TURN_SHARE)


def turn_prompt(turn: int) -> list[dict]:
    """The prompt of ``turn`` (two messages per turn before it), with memories found
    for its own question, different every turn."""
    history = [
        message(n, "user" if n % 2 else "assistant", f"message {n}: {WORDS}")
        for n in range(1, 2 * turn + 1)
    ]
    found = [hit(memory(100 + turn, f"memory found for turn {turn}"), 1, 0.9)]
    context = build_context(
        system_prompt=SYSTEM,
        user_message=f"question {turn}",
        budget_tokens=BUDGET,
        recent_messages=history,
        retrieved=found,
    )
    kept = context.messages[1:-1]
    assert context.tokens <= BUDGET
    dropped = len(history) - len(kept)
    assert dropped == context.dropped.messages
    assert [m["content"] for m in kept] == [m.content for m in history[dropped:]]  # no holes
    assert "memory found for turn" not in str(context.messages[:-1])  # after the history
    return context.messages


def common_prefix(a: list[dict], b: list[dict]) -> int:
    """How many whole messages two prompts share from their start."""
    pairs = zip(a, b, strict=False)
    return sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))


def test_each_turn_reads_the_last_turns_prompt_as_its_start_except_at_a_few_cuts():
    prompts = [turn_prompt(turn) for turn in range(1, 40)]
    added = estimate_message_tokens(f"message 10: {WORDS}") * 2  # a turn's two messages
    cuts = 0
    for before, after in itertools.pairwise(prompts):
        # Everything before the last turn's question (system message and history) is
        # the start of the next prompt, unless old messages left at this turn.
        if common_prefix(before, after) == len(before) - 1:
            continue
        cuts += 1
        assert common_prefix(before, after) == 1  # the system message stays
        assert after[1]["content"] != before[1]["content"]  # the oldest left
    # The history grows back over half its room between two cuts.
    assert 1 <= cuts <= len(prompts) * added // int(ROOM * (1 - CUT_TO_SHARE)) + 1
    assert cuts <= len(prompts) // 5


def test_a_cut_leaves_half_the_room_so_the_history_can_grow_back():
    costs = [50] * 40
    room = 500
    starts = [history_start(costs[:n], room) for n in range(1, 41)]
    assert starts == sorted(starts)  # the start only moves on
    for n, start in enumerate(starts, start=1):
        assert sum(costs[start:n]) <= room  # the history fits its room
    moves = [(a, b) for a, b in itertools.pairwise(starts) if a != b]
    # Each cut takes the history down to half its room, so it drops many messages at once.
    assert all(b - a >= room * CUT_TO_SHARE // 50 for a, b in moves)
    assert 1 <= len(moves) <= (sum(costs) - room) // int(room * (1 - CUT_TO_SHARE)) + 1


def test_one_message_over_the_room_is_left_out_and_the_next_ones_still_go_in():
    assert history_start([10, 900, 10, 10], 100) == 2
    assert history_start([], 100) == 0


def test_a_message_longer_than_the_turns_share_shrinks_the_history_not_the_budget():
    history = [message(n, "user", f"message {n}: {WORDS}") for n in range(1, 40)]
    long_question = "word " * int(BUDGET * TURN_SHARE * 1.2)
    context = build_context(
        system_prompt=SYSTEM,
        user_message=long_question,
        budget_tokens=BUDGET,
        recent_messages=history,
    )
    assert context.tokens <= BUDGET
    assert context.messages[-1]["content"] == long_question
    short = build_context(
        system_prompt=SYSTEM, user_message="hi", budget_tokens=BUDGET, recent_messages=history
    )
    assert len(context.messages) < len(short.messages)
    assert sum(estimate_message_tokens(m["content"]) for m in short.messages[1:-1]) <= BUDGET * (
        1 - TURN_SHARE
    )
