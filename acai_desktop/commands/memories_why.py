"""``acai-desktop memories why --answer N --memory M|--message M|--passage P|--text WORDS``:
why an answer used a memory, a past message or a document passage, or didn't (issue 43).

The answer's turn is replayed as it was (as of its question, in its chat's scope and
budget) and the reason printed in plain words, with the fixes that apply as the
commands that make them. ``--json`` prints the result: ``reason`` (``used``,
``below_floor``, ``other_scope``, ``forgotten``, ``superseded``, ``over_budget``,
``not_found`` or ``withheld``), ``rank``, ``score``, ``floor`` and ``evidence``,
``sentence``, ``item`` and ``fixes``. Nothing is changed."""

from __future__ import annotations

import argparse
import shlex
import textwrap
from collections.abc import Callable

from acai_desktop.core.profile.paths import Profile


def add_action(action: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The ``why`` action of ``memories`` (``action``: its sub-command maker)."""
    why = action("why", "why an answer used a memory, message or document passage, or didn't")
    why.add_argument(
        "--answer",
        type=int,
        required=True,
        metavar="N",
        help="the answer's message id (`chat --json` prints it as answer_id)",
    )
    item = why.add_mutually_exclusive_group(required=True)
    item.add_argument("--memory", type=int, metavar="M", help="a memory's id")
    item.add_argument("--message", type=int, metavar="M", help="a message's id, of any chat")
    item.add_argument("--passage", type=int, metavar="P", help="a document passage's id (chunk_id)")
    item.add_argument(
        "--text", metavar="WORDS", help="words of it, pasted: the item holding them best"
    )


async def explain(args: argparse.Namespace, profile: Profile) -> dict:
    """The ``why`` result as JSON-shaped data."""
    from acai_desktop.core.why_not.result import ItemKind
    from acai_desktop.core.why_not.service import open_why_not

    async with open_why_not(profile) as why:
        if args.text is not None:
            result = await why.explain_words(args.answer, args.text)
        elif args.memory is not None:
            result = await why.explain(args.answer, ItemKind.MEMORY, args.memory)
        elif args.message is not None:
            result = await why.explain(args.answer, ItemKind.MESSAGE, args.message)
        else:
            result = await why.explain(args.answer, ItemKind.PASSAGE, args.passage)
    return result.to_dict()


def fix_command(fix: dict) -> str:
    """The command that applies a fix, where the command line has one."""
    if fix["action"] in ("pin", "restore"):
        return f"acai-desktop memories {fix['action']} {fix['memory_id']}"
    if fix["action"] == "note":
        return f"acai-desktop memories add {shlex.quote(fix['text'])}"
    return "in the window (Sources, Why not…?)"


def as_text(output: dict) -> str:
    """The result for a person: the question, the item, the reason and the fixes."""
    width = 100
    lines = [f"Answer {output['answer_id']} to: {output['question']}"]
    item = output["item"]
    if item is not None:
        lines.append(
            f"{item['kind'].capitalize()} {item['id']} ({item['where']}): "
            + textwrap.shorten(" ".join(item["text"].split()), 160, placeholder="…")
        )
    lines.append(f"{output['reason']}: " + output["sentence"])
    figures = []
    if output["rank"] is not None:
        figures.append(f"rank {output['rank']}, score {output['score']:.2f}")
    if output["evidence"] is not None and output["floor"] is not None:
        figures.append(f"evidence {output['evidence']:.2f} of the floor's {output['floor']:g}")
    if figures:
        lines.append("  " + "; ".join(figures))
    if output["fixes"]:
        lines.append("Fixes (nothing was changed):")
        for fix in output["fixes"]:
            lines.append(f"  - {fix['label']} — {fix_command(fix)}")
    return "\n".join(
        textwrap.fill(line, width, subsequent_indent="    ") if len(line) > width else line
        for line in lines
    )
