"""``acai-desktop conversations list | export ID --format md|json FILE``.

Read-only: it opens the database beside a running window (SQLite's WAL lets it read while
the window writes) and changes nothing. ``FILE`` ``-`` writes to standard output.
"""

from __future__ import annotations

import argparse
import json
import sys

from acai_desktop.commands.arguments import add_common_arguments
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.conversations.export import FORMATS, export_text, write_export
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile.paths import Profile


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common)
    parser = subparsers.add_parser(
        "conversations",
        parents=[common],
        help="list conversations, export one to Markdown or JSON",
        description="List the profile's conversations or export one to a file.",
    )
    actions = parser.add_subparsers(dest="conversations_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="pinned first, then latest")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    export = actions.add_parser("export", parents=[common], help="write one conversation to a file")
    export.add_argument("id", help="the conversation's id (see `conversations list`)")
    export.add_argument("file", help="where to write it; - for standard output")
    export.add_argument("--format", choices=FORMATS, default="md")
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.conversations.service import open_conversation_reader

    async with open_conversation_reader(profile) as conversations:
        if args.conversations_action == "list":
            _print_list(await conversations.list(), args.json)
            return 0
        conversation = await conversations.get(_id(args.id))
        messages = await conversations.messages(conversation.id, include_hidden=True)
    _write(args.file, export_text(conversation, messages, args.format))
    if args.file != "-":
        print(
            f"Exported {len(messages)} messages of conversation {conversation.id} to {args.file}."
        )
    return 0


def _id(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidInputError(f"{text!r} is not a conversation id (a number).") from None


def _print_list(conversations, as_json_output: bool) -> None:
    if as_json_output:
        rows = [
            {"id": c.id, "title": c.title, "created_at": c.created_at,
             "updated_at": c.updated_at, "temporary": c.temporary, "pinned": c.pinned}
            for c in conversations
        ]  # fmt: skip
        print(json.dumps({"conversations": rows}, ensure_ascii=False, indent=2))
        return
    if not conversations:
        print("No conversations.")
        return
    for c in conversations:
        marks = (" (pinned)" if c.pinned else "") + (" (temporary)" if c.temporary else "")
        title = " ".join(c.title.split()) or "Untitled"
        print(f"{c.id:>6}  {c.updated_at[:16].replace('T', ' ')}  {title}{marks}")


def _write(file: str, text: str) -> None:
    if file == "-":
        sys.stdout.write(text)
    else:
        write_export(file, text)
