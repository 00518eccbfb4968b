"""``acai-desktop memories review | confirm ID | outdated ID``: the facts that have aged
past their lifetime (core/memory/fact_ages.py), and the user's answers about them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acai_desktop.core.memory.fact_review import FactReview
    from acai_desktop.core.memory.front_door import Memory

ACTIONS = {
    "review": "the facts worth asking about again (past their lifetime), oldest first",
    "confirm": "say a fact is still true: it is as of today",
    "outdated": "say a fact is no longer true: it is superseded (its history keeps it)",
}


def add_actions(action) -> None:
    """The review's actions on the ``memories`` parser (``action(name, help)``)."""
    action("review", ACTIONS["review"])
    for name in ("confirm", "outdated"):
        action(name, ACTIONS[name]).add_argument("id")


def fact_review(memory: Memory, args: argparse.Namespace) -> FactReview:
    """The review with the profile's lifetimes (``fact-lifetimes.json`` in its folder)."""
    from acai_desktop.core.memory.fact_review import FactAges, FactReview

    return FactReview(memory, FactAges(args.profile.data_dir))


async def review(memory: Memory, args: argparse.Namespace) -> dict:
    due = await fact_review(memory, args).due()
    return {"due": [{**memory.to_json(item), "said_at": item.said_at} for item in due]}


async def confirm(memory: Memory, args: argparse.Namespace) -> dict:
    return memory.to_json(await fact_review(memory, args).confirm(int(args.id)))


async def outdated(memory: Memory, args: argparse.Namespace) -> dict:
    return memory.to_json(await fact_review(memory, args).retire(int(args.id)))


def review_lines(output: dict) -> str:
    if not output["due"]:
        return "Nothing to review: every fact is within its lifetime (or the week's few are done)."
    lines = ["Still true? (`memories confirm ID`, `memories outdated ID`, `memories edit ID TEXT`)"]
    for item in output["due"]:
        lines.append(f"  #{item['id']} {item['content']}  (as of {item['said_at'][:10]})")
    return "\n".join(lines)
