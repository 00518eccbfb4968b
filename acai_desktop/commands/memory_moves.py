"""``memories export [--format json|text|markdown] FILE`` and ``memories import [--format
json|chatgpt-memories|claude-memory] FILE``: the memory in ACAI's own JSON (a backup,
everything) or in the forms other assistants take and give (core/memory/memory_block.py,
core/memory/list_import.py). ``-`` as the export's FILE is standard output; as a memory
list's FILE, standard input."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acai_desktop.core.memory.front_door import Memory

#: The file name that means standard output (or, for a memory list, standard input).
STDIO = "-"
JSON = "json"
EXPORT_FORMATS = {JSON: "JSON", "text": "plain text", "markdown": "Markdown"}
IMPORT_FORMATS = (JSON, "chatgpt-memories", "claude-memory")


def add_arguments(export: argparse.ArgumentParser, import_: argparse.ArgumentParser) -> None:
    export.add_argument("file", help="where to write it; - for standard output")
    export.add_argument(
        "--format",
        choices=list(EXPORT_FORMATS),
        default=JSON,
        help="json: every memory, as a backup (the default); text: a memory block for "
        "Claude or ChatGPT, one fact a line by category, local-only memories left out; "
        "markdown: the same block as Markdown",
    )
    import_.add_argument("file", help="the file to read; for a memory list, - reads standard input")
    import_.add_argument(
        "--format",
        choices=IMPORT_FORMATS,
        default=JSON,
        help="json: an export of ACAI Desktop (the default); chatgpt-memories: ChatGPT's "
        "saved memories, one a line; claude-memory: Claude's memory text",
    )


async def export(memory: Memory, args: argparse.Namespace) -> dict:
    from acai_desktop.core.memory.transfer import export_memories, export_text

    if args.format == JSON:
        if args.file == STDIO:  # as `conversations export ID -` does
            text, count = await export_text(memory)
            sys.stdout.write(text)
            return {"exported": count, "file": STDIO}
        return {"exported": await export_memories(memory, args.file), "file": args.file}
    from acai_desktop.core.memory.memory_block import (
        BlockFormat,
        export_memory_block,
        write_memory_block,
    )

    block_format = BlockFormat(args.format)
    if args.file == STDIO:
        block = await export_memory_block(memory, block_format)
        sys.stdout.write(block.text)
    else:
        block = await write_memory_block(memory, args.file, block_format)
    return {
        "exported": block.exported,
        "file": args.file,
        "format": args.format,
        "local_only_left_out": block.local_only_left_out,
    }


async def import_(memory: Memory, args: argparse.Namespace) -> dict:
    if args.format == JSON:
        from acai_desktop.core.memory.transfer import import_memories

        report = await import_memories(memory, args.file)
        return {**report.to_dict(), "file": args.file}
    from acai_desktop.core.memory.assistant_formats import ListFormat
    from acai_desktop.core.memory.list_import import import_memory_list, read_list_file

    text = sys.stdin.read() if args.file == STDIO else read_list_file(args.file)
    report = await import_memory_list(memory, text, ListFormat(args.format))
    return {**report.to_dict(), "file": args.file}


def human_export(output: dict) -> str:
    from acai_desktop.core.memory.memory_block import exported_text

    form = output.get("format", JSON)
    if form == JSON:
        return f"Exported {output['exported']} memories to {output['file']}."
    return exported_text(
        output["exported"], output["file"], EXPORT_FORMATS[form], output["local_only_left_out"]
    )


def human_import(output: dict) -> str:
    if "lines" in output:  # a memory list's report
        from acai_desktop.core.memory.list_import import report_text

        return report_text(output)
    unlinked = output["unlinked_sources"]
    return (
        f"Imported {output['imported']} memories from {output['file']} "
        f"({output['skipped']} already present"
        + (f", {unlinked} sources kept unlinked" if unlinked else "")
        + ")."
    )
