"""``acai-desktop import chatgpt|claude FILE``: conversations from other assistants.

``FILE`` is the export's ``conversations.json``. ``--learn all|none|months:N`` chooses
what ACAI learns facts from (default ``all``); the learning runs as background jobs in
the window. ``import status`` shows how far it is, ``import pause`` / ``import resume``
hold and release it. Works beside the open window, as ``memories import`` does. With
``--json``: the import prints ``{"conversations", "messages", "skipped_conversations",
"skipped_messages", "learning_jobs", "budget", "repeated_ids_kept",
"repeated_ids_dropped"}``; the others ``{"done", "waiting",
"failed", "total", "paused"}``.
"""

from __future__ import annotations

import argparse
import json
import sys

from acai_desktop.commands.arguments import options_of_every_action
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.profile.paths import Profile

SOURCES = {"chatgpt": "ChatGPT", "claude": "Claude"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = options_of_every_action()
    parser = subparsers.add_parser(
        "import",
        parents=[common],
        help="import conversations from ChatGPT or Claude; follow the learning from them",
        description="Import the conversations of a ChatGPT or Claude data export.",
    )
    actions = parser.add_subparsers(dest="import_action", metavar="ACTION", required=True)
    for source, label in SOURCES.items():
        action = actions.add_parser(
            source, parents=[common], help=f"import {label}'s conversations.json"
        )
        action.add_argument("file", help="the export's conversations.json")
        action.add_argument(
            "--learn",
            default="all",
            metavar="BUDGET",
            help="learn facts from: all (default), none, or months:N (the last N months)",
        )
    actions.add_parser("status", parents=[common], help="how far learning from imports is")
    actions.add_parser("pause", parents=[common], help="pause learning from imports")
    actions.add_parser("resume", parents=[common], help="resume learning from imports")
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.conversations.chat_import.budget import LearningBudget
    from acai_desktop.core.conversations.chat_import.service import imports_beside_the_window
    from acai_desktop.core.memory.front_door import open_memory

    action = args.import_action
    budget = LearningBudget.parse(args.learn) if action in SOURCES else None
    as_json = getattr(args, "json", False)
    async with open_memory(profile) as memory:
        imports = imports_beside_the_window(memory)
        if budget is not None:
            report = await imports.import_file(action, args.file, budget, _progress_line)
            output, text = report.to_dict(), _report_text(SOURCES[action], report)
        else:
            change = {"pause": imports.pause_learning, "resume": imports.resume_learning}
            progress = await change.get(action, imports.learning_progress)()
            output, text = progress.to_dict(), progress.text()
    print(json.dumps(output, indent=2) if as_json else text)
    return 0


def _progress_line(done: int, total: int) -> None:
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\racai-desktop: imported {done} of {total} conversations", end=end, file=sys.stderr)


def _report_text(label: str, report) -> str:
    lines = [
        f"Imported {report.conversations} conversations ({report.messages} messages) from {label}."
    ]
    if report.skipped_conversations or report.skipped_messages:
        lines.append(
            f"Already here from an earlier import: {report.skipped_conversations} "
            f"conversations, {report.skipped_messages} messages."
        )
    if report.repeats_text():
        lines.append(report.repeats_text())
    if report.learning_jobs:
        lines.append(
            f"Learning facts from {report.learning_jobs} of your messages (budget "
            f"{report.budget}) runs in the background in the window; `acai-desktop import "
            "status` shows how far it is."
        )
    return "\n".join(lines)
