"""The memory as a block another assistant takes (``memories export --format text`` or
``markdown``, and the window's *Export memories…*).

Claude takes memory by pasting text into its import box; ChatGPT by being told, in a
chat, what to remember. Both read plain text, so the block is one fact a line, grouped
by category under a heading line::

    Location:
    - The user lives in Lisbon.

    Personal:
    - The user's name is Ana.

and the Markdown form is the same under ``#``/``##`` headings. It holds what the user
would want the other assistant to know: the current (active) facts and notes, not
summaries of past chats (they describe conversations, not the user), nor what was
forgotten, replaced, kept temporary or waits in a conflict. A memory kept to a project
is grouped under the project's name. What is local only (core/store/local_only.py)
never leaves: those memories are left out and counted, so the user is told.

A memory's text is data, never layout: its whitespace (newlines included, any Unicode
line or paragraph separator too) becomes single spaces, so every memory is one line and
no memory can write a heading of its own; in Markdown its punctuation that would be
markup or HTML (``<``, ``*``, ``[``, ``#``, a leading ``-``, ...) is escaped. The block
reads back through :mod:`~acai_desktop.core.memory.assistant_formats` as the same facts.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.memory.transfer import write_whole
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.store.projects import list_projects

#: The category heading of memories without one (the intake's default, too).
NO_CATEGORY = "Other"
MARKDOWN_TITLE = "Memories from ACAI Desktop"
EXPORTED = MemoryFilter(
    kinds=(MemoryKind.FACT.value, MemoryKind.NOTE.value),
    statuses=(MemoryStatus.ACTIVE.value,),
)


class BlockFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"


@dataclass(frozen=True)
class MemoryBlock:
    text: str
    #: Memories in the block.
    exported: int
    #: Current memories left out because they are local only.
    local_only_left_out: int


def exported_text(exported: int, file: str, form: str, local_only_left_out: int) -> str:
    """What an export says it did, for the command line and the window's status bar."""
    memories = f"{exported} {'memory' if exported == 1 else 'memories'}"
    left_out = ""
    if local_only_left_out:
        them = "memory" if local_only_left_out == 1 else "memories"
        left_out = f"; {local_only_left_out} local-only {them} left out"
    return f"Exported {memories} to {file} as {form}{left_out}."


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line breaks of every kind) one space."""
    return " ".join(text.split())


def grouped(items: list[MemoryItem], project_names: dict[int, str]) -> list[tuple[str, list[str]]]:
    """(heading, memory texts) pairs: categories by name with :data:`NO_CATEGORY` last,
    then each project's memories under "<name> (project)"; oldest memory first."""
    categories: dict[str, list[MemoryItem]] = defaultdict(list)
    projects: dict[str, list[MemoryItem]] = defaultdict(list)
    for item in items:
        if item.project_id is not None and item.project_id in project_names:
            projects[f"{one_line(project_names[item.project_id])} (project)"].append(item)
        else:
            categories[_heading_text(item.category)].append(item)
    order = sorted(categories, key=lambda name: (name == NO_CATEGORY, name.lower()))
    groups = [(name, categories[name]) for name in order]
    groups += [(name, projects[name]) for name in sorted(projects, key=str.lower)]
    return [
        (name, [one_line(item.content) for item in sorted(members, key=_age)])
        for name, members in groups
    ]


def _age(item: MemoryItem) -> tuple[str, int]:
    return item.created_at, item.id


def _heading_text(category: str | None) -> str:
    """A category as a heading line: one line, without the markers or the colon that
    the reader takes for a list's own."""
    name = one_line(category or "").lstrip("-*+•#> ").rstrip(": ")
    return name or NO_CATEGORY


def block_text(groups: list[tuple[str, list[str]]], block_format: BlockFormat) -> str:
    """The block's text, ending in a newline (empty for no memories)."""
    if block_format is BlockFormat.MARKDOWN:
        parts = [f"# {MARKDOWN_TITLE}\n"]
        for heading, texts in groups:
            lines = "\n".join(f"- {markdown_escaped(text)}" for text in texts)
            parts.append(f"## {markdown_escaped(heading)}\n\n{lines}\n")
        return "\n".join(parts)
    parts = []
    for heading, texts in groups:
        parts.append(f"{heading}:\n" + "".join(f"- {text}\n" for text in texts))
    return "\n".join(parts)


_MARKUP = re.compile(r"([\\`*_\[\]<>#|~])")
_NUMBERED = re.compile(r"^(\d+)([.)])")


def markdown_escaped(text: str) -> str:
    """One line of text that Markdown shows as it is: no emphasis, link, code, HTML
    tag, heading, table cell, nor a list of its own."""
    escaped = _MARKUP.sub(r"\\\1", text)
    if escaped[:1] in ("-", "+", "="):
        return "\\" + escaped
    return _NUMBERED.sub(r"\1\\\2", escaped, count=1)


async def export_memory_block(memory, block_format: BlockFormat) -> MemoryBlock:
    """The profile's memory (``memory``: a :class:`~acai_desktop.core.memory.front_door.Memory`)
    as a block in ``block_format``, local-only memories left out."""
    items = await memory.list(EXPORTED)
    private = (await memory.local_only()).memory_ids
    shared = [item for item in items if item.id not in private]
    projects = {project.id: project.name for project in await memory.store.run(list_projects)}
    text = block_text(grouped(shared, projects), block_format)
    return MemoryBlock(text, len(shared), len(items) - len(shared))


async def write_memory_block(memory, path, block_format: BlockFormat) -> MemoryBlock:
    """:func:`export_memory_block` written to ``path``, whole or not at all."""
    block = await export_memory_block(memory, block_format)
    await asyncio.to_thread(write_whole, path, block.text)
    return block
