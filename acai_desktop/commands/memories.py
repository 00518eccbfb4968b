"""``acai-desktop memories ...``: the window into the memory, from a terminal.

Every action takes ``--data-dir`` and ``--json`` before or after its name. With
``--json``,
``add``/``show``/``edit``/``pin``/``unpin``/``keep-local``/``share``/``forget``/
``restore``/``resolve`` print the memory object (with ``id`` and ``sources``; ``show``
adds ``history``), ``list``/``search`` print ``{"memories": [...]}`` (a search hit adds
``rank``, ``score`` and ``reasons``; ``list`` adds ``total``, ``more`` and ``offset``:
it shows ``DEFAULT_LIST_LIMIT`` memories unless given ``--limit N`` or ``--no-limit``),
``export``/``import`` print a summary (an import of another assistant's memory list,
its report: each line kept, merged, suggested or refused, with the reason; see
commands/memory_moves.py). ``suggestions`` prints ``{"suggestions": [...]}``
(facts waiting for a yes), ``accept`` the new memory, ``dismiss`` the suggestion.
``why`` replays an answer's turn and says why it used an item or not
(commands/memories_why.py); ``review``/``confirm``/``outdated``: the facts past their
lifetime (commands/memory_review.py)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap
from typing import TYPE_CHECKING

from acai_desktop.commands import memories_why, memory_moves, memory_review
from acai_desktop.commands.arguments import options_of_every_action
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MemoryEvent, MemoryItem, MemoryKind, MemoryStatus

if TYPE_CHECKING:  # the memory stack loads when a memories command runs, not at start
    from acai_desktop.core.memory.front_door import Memory

DEFAULT_SEARCH_RESULTS = 10
#: ``memories list`` shows this many unless told otherwise: a large profile would
#: otherwise print tens of megabytes.
DEFAULT_LIST_LIMIT = 100


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = options_of_every_action()
    parser = subparsers.add_parser(
        "memories",
        parents=[common],
        help="list, add, edit, pin, forget, search, export and import memories",
        description="Look at and change the long-term memory of a profile.",
    )
    actions = parser.add_subparsers(dest="memories_action", metavar="ACTION", required=True)

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        return actions.add_parser(name, parents=[common], help=help_text, description=help_text)

    listing = action("list", "list memories (active, temporary and conflicts by default)")
    listing.add_argument("--kind", choices=[k.value for k in MemoryKind])
    listing.add_argument("--category")
    listing.add_argument("--status", choices=[s.value for s in MemoryStatus])
    listing.add_argument("--pinned", action="store_true", help="only pinned memories")
    listing.add_argument("--all", action="store_true", help="every status, forgotten included")
    listing.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIST_LIMIT,
        help=f"show at most this many (default {DEFAULT_LIST_LIMIT}; the rest are counted)",
    )
    listing.add_argument("--offset", type=int, default=0, help="skip this many first")
    listing.add_argument(
        "--no-limit", action="store_true", help="show every matching memory (can be long)"
    )

    show = action("show", "show one memory with its sources and history")
    show.add_argument("id")

    add = action("add", "remember a text (always stored: you asked)")
    add.add_argument("text")
    add.add_argument("--kind", choices=[k.value for k in MemoryKind], default=MemoryKind.NOTE.value)
    add.add_argument("--category")
    add.add_argument("--pin", action="store_true", help="pin it at once")

    edit = action("edit", "replace a memory's text (it becomes user-edited)")
    edit.add_argument("id")
    edit.add_argument("text")

    for name, help_text in (
        ("pin", "pin a memory: always in context, never changed by a processor"),
        ("unpin", "unpin a memory"),
        ("keep-local", "mark a memory local only: never sent to a model that runs elsewhere"),
        ("share", "unmark a local-only memory: models that run elsewhere may read it again"),
        ("forget", "forget a memory (it can be restored)"),
        ("restore", "restore a forgotten memory"),
    ):
        action(name, help_text).add_argument("id")

    resolve = action(
        "resolve",
        "decide a conflict: keep the new fact (it replaces the memory it contradicts) "
        "or the old memory (the conflict is forgotten)",
    )
    resolve.add_argument("id", help="the id of the conflict")
    resolve.add_argument("--keep", choices=("new", "old"), required=True)

    search = action("search", "find the memories that match a query")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=DEFAULT_SEARCH_RESULTS, help="how many")

    action("suggestions", 'facts waiting for your yes ("Ask before remembering")')
    memory_review.add_actions(action)
    accept = action("accept", "accept a suggestion: it becomes a memory")
    accept.add_argument("id", help="the id of the suggestion")
    accept.add_argument("--text", help="remember it in your own words instead")
    action("dismiss", "dismiss a suggestion: never proposed again for its message").add_argument(
        "id", help="the id of the suggestion"
    )

    memory_moves.add_arguments(
        action("export", "write the memories to a file: JSON, or a block for another assistant"),
        action(
            "import", "read memories from an export or another assistant's list (no duplicates)"
        ),
    )
    memories_why.add_action(action)

    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.memory.front_door import open_memory

    as_json = getattr(args, "json", False)
    args.profile = profile  # the review reads the lifetimes in its folder
    if args.memories_action == "why":  # replays a turn: more than the memory
        output = await memories_why.explain(args, profile)
    else:
        async with open_memory(profile) as memory:
            output = await ACTIONS[args.memories_action](memory, args)
    # An export to standard output keeps it for the export alone: the summary goes to
    # standard error.
    to_stdout = args.memories_action == "export" and args.file == memory_moves.STDIO
    summary = sys.stderr if to_stdout else sys.stdout
    if as_json:
        print(json.dumps(output, ensure_ascii=False, indent=2), file=summary)
    else:
        print(_human(args.memories_action, output), file=summary)
    return 0


# -- actions: each returns the JSON-shaped result ---------------------------------


async def _detailed(memory: Memory, item: MemoryItem, *, history: bool = False) -> dict:
    result = memory.to_json(item)
    result["sources"] = await memory.sources(item.id)
    if item.status == MemoryStatus.CONFLICT:  # what `resolve` would replace or keep
        result["conflicts_with"] = item.meta.get("conflicts_with")
    if history:
        result["history"] = [_event(event) for event in await memory.history(item.id)]
    return result


def _event(event: MemoryEvent) -> dict:
    return {
        "at": event.at,
        "actor": event.actor.value,
        "action": event.action,
        "before": event.before,
        "after": event.after,
    }


def _id(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidInputError(f"{text!r} is not a memory id (a number).") from None


async def _list(memory: Memory, args: argparse.Namespace) -> dict:
    from acai_desktop.core.memory.front_door import MemoryFilter

    statuses = MemoryFilter().statuses
    if args.all:
        statuses = None
    if args.status:
        statuses = (args.status,)
    if not args.no_limit and args.limit < 1:
        raise InvalidInputError("--limit must be at least 1 (or use --no-limit).")
    if args.offset < 0:
        raise InvalidInputError("--offset must not be negative.")
    where = MemoryFilter(
        kinds=(args.kind,) if args.kind else None,
        statuses=statuses,
        category=args.category,
        pinned=True if args.pinned else None,
        limit=None if args.no_limit else args.limit,
        offset=args.offset,
    )
    memories = [memory.to_json(item) for item in await memory.list(where)]
    total = await memory.count(where)
    # "total": every memory the filter matches; "more": how many come after these.
    more = max(0, total - args.offset - len(memories))
    return {"memories": memories, "total": total, "more": more, "offset": args.offset}


async def _show(memory: Memory, args: argparse.Namespace) -> dict:
    return await _detailed(memory, await memory.get(_id(args.id)), history=True)


async def _add(memory: Memory, args: argparse.Namespace) -> dict:
    item = await memory.remember(args.text, kind=args.kind, category=args.category, explicit=True)
    if args.pin:
        item = await memory.pin(item.id)
    return await _detailed(memory, item)


async def _edit(memory: Memory, args: argparse.Namespace) -> dict:
    return await _detailed(memory, await memory.edit(_id(args.id), args.text))


def _simple(method: str):
    async def act(memory: Memory, args: argparse.Namespace) -> dict:
        item = await getattr(memory, method)(_id(args.id))
        return await _detailed(memory, item)

    return act


def _local_only(local_only: bool):
    async def act(memory: Memory, args: argparse.Namespace) -> dict:
        return await _detailed(memory, await memory.set_local_only(_id(args.id), local_only))

    return act


async def _resolve(memory: Memory, args: argparse.Namespace) -> dict:
    item = await memory.resolve_conflict(_id(args.id), keep=args.keep)
    return await _detailed(memory, item)


async def _search(memory: Memory, args: argparse.Namespace) -> dict:
    if args.k < 1:
        raise InvalidInputError("-k must be at least 1.")
    hits = await memory.search(args.query, args.k)
    return {
        "memories": [
            {
                **memory.to_json(hit.memory),
                "rank": hit.rank,
                "score": hit.score,
                "reasons": hit.reasons,
            }
            for hit in hits
        ]
    }


def _suggestion(suggestion) -> dict:
    return {
        "id": suggestion.id,
        "content": suggestion.content,
        "category": suggestion.category,
        "confidence": suggestion.confidence,
        "status": suggestion.status.value,
        "message_id": suggestion.message_id,
        "conversation_id": suggestion.conversation_id,
        "memory_id": suggestion.memory_id,
        "created_at": suggestion.created_at,
    }


async def _pending(memory: Memory, args: argparse.Namespace) -> dict:
    pending = await memory.suggestions.pending()
    return {"suggestions": [_suggestion(s) for s in pending]}


async def _accept(memory: Memory, args: argparse.Namespace) -> dict:
    accepted = await memory.suggestions.accept(_id(args.id), args.text)
    return await _detailed(memory, accepted)


async def _dismiss(memory: Memory, args: argparse.Namespace) -> dict:
    return _suggestion(await memory.suggestions.dismiss(_id(args.id)))


ACTIONS = {
    "list": _list,
    "show": _show,
    "add": _add,
    "edit": _edit,
    "pin": _simple("pin"),
    "unpin": _simple("unpin"),
    "keep-local": _local_only(True),
    "share": _local_only(False),
    "forget": _simple("forget"),
    "restore": _simple("restore"),
    "resolve": _resolve,
    "search": _search,
    "suggestions": _pending,
    "review": memory_review.review,
    "confirm": memory_review.confirm,
    "outdated": memory_review.outdated,
    "accept": _accept,
    "dismiss": _dismiss,
    "export": memory_moves.export,
    "import": memory_moves.import_,
}


# -- human output ------------------------------------------------------------------


def _table(memories: list[dict]) -> str:
    if not memories:
        return "No memories."
    width = shutil.get_terminal_size((100, 24)).columns
    id_width = max(5, *(len(str(memory["id"])) for memory in memories))
    header = f"{'ID':>{id_width}}  {'STATUS':<10} {'KIND':<7} {'IMP':>4}  {'CATEGORY':<12} CONTENT"
    lines = [header]
    fixed = len(header) - len("CONTENT")
    for memory in memories:
        content = " ".join(memory["content"].split())
        pin = "[pinned] " if memory["pinned"] else ""
        if "score" in memory:  # a search hit: say how well it matched, and why
            pin = f"({memory['score']:.2f} {'+'.join(memory['reasons'])}) " + pin
        room = max(20, width - fixed - 1)
        lines.append(
            f"{memory['id']:>{id_width}}  {memory['status']:<10} {memory['kind']:<7} "
            f"{memory['importance']:>4.2f}  {(memory['category'] or '-')[:12]:<12} "
            + textwrap.shorten(pin + content, room, placeholder="...")
        )
    return "\n".join(lines)


def _card(memory: dict) -> str:
    lines = [f"Memory {memory['id']} ({memory['status']}, {memory['kind']})"]
    lines.append(textwrap.indent(memory["content"], "  "))
    facts = [
        f"category: {memory['category'] or '-'}",
        f"confidence: {memory['confidence']:.2f}",
        f"importance: {memory['importance']:.2f}",
        f"origin: {memory['origin']}",
    ]
    if memory["pinned"]:
        facts.append("pinned")
    if memory.get("local_only"):
        facts.append("local only")
    if memory["user_edited"]:
        facts.append("edited by you")
    if memory["superseded_by"]:
        facts.append(f"superseded by {memory['superseded_by']}")
    if memory.get("conflicts_with"):
        facts.append(f"contradicts memory {memory['conflicts_with']}")
    lines.append("  " + ", ".join(facts))
    lines.append(f"  used {memory['use_count']} times; created {memory['created_at']}")
    if memory.get("sources"):
        lines.append("  from messages: " + ", ".join(str(s) for s in memory["sources"]))
    for event in memory.get("history", []):
        via = (event.get("after") or {}).get("via")
        who = via or event["actor"]
        lines.append(f"  {event['at']}  {who:<24} {event['action']}")
    return "\n".join(lines)


def _more_line(output: dict) -> str:
    shown = len(output["memories"])
    first = output["offset"] + 1
    return (
        f"Showing {first:,}–{output['offset'] + shown:,} of {output['total']:,}; "
        f"{output['more']:,} more (--offset {output['offset'] + shown} for the next ones, "
        "--limit N for more at once, --no-limit for all)."
    )


def _suggestion_lines(suggestions: list[dict]) -> str:
    if not suggestions:
        return "No suggestions waiting."
    lines = [f"{'ID':>5}  {'CATEGORY':<12} FACT (from message)"]
    for s in suggestions:
        lines.append(f"{s['id']:>5}  {s['category'][:12]:<12} {s['content']} ({s['message_id']})")
    lines.append("Accept with `memories accept ID`, dismiss with `memories dismiss ID`.")
    return "\n".join(lines)


def _human(action: str, output: dict) -> str:
    if action == "review":
        return memory_review.review_lines(output)
    if action == "why":
        return memories_why.as_text(output)
    if action == "suggestions":
        return _suggestion_lines(output["suggestions"])
    if action == "dismiss":
        return f"Dismissed suggestion {output['id']}: it won't be proposed again for its message."
    if action == "list" and output["more"]:
        return _table(output["memories"]) + "\n" + _more_line(output)
    if action in ("list", "search"):
        return _table(output["memories"])
    if action == "export":
        return memory_moves.human_export(output)
    if action == "import":
        return memory_moves.human_import(output)
    return _card(output)
