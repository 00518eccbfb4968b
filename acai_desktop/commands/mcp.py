"""``acai-desktop mcp``: the profile's memory as an MCP server over stdio, for Claude
Desktop, Cursor and other MCP clients (the official ``mcp`` SDK).

Tools: ``search_memory``, ``list_memories``, ``remember`` (grounding check; a suggestion
for the window when "Ask before remembering" is on or no ``user_said`` backs the fact)
and ``recall_messages``. Resources:
``acai://memories/pinned`` (every pinned memory) and ``acai://memories/{id}``.

It runs beside the open window on the same profile without its lock, as the
``memories`` command does: its writes are ordinary transactions through the same
services and rules, and the window picks them up (``core/outside_changes``). Before
each request it catches up with what the window wrote. Nothing but the protocol may go
to standard output: logs go to standard error. Every frame passes a gate first
(``mcp_stdio``: size, depth, text, shape), and every request gets an answer: a refused
frame and a tool's refusal both say why.
"""

from __future__ import annotations

import argparse

from acai_desktop.commands.arguments import add_common_arguments
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.profile.paths import Profile


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common)
    parser = subparsers.add_parser(
        "mcp",
        parents=[common],
        help="serve the memory to MCP clients (Claude Desktop, Cursor) over stdio",
        description="Run an MCP server over standard input and output on this profile's "
        "memory. Configure it in the client; see the user guide.",
    )
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    await _serve(profile)
    return 0


async def _serve(profile: Profile) -> None:
    from acai_desktop.commands.mcp_server import build_server
    from acai_desktop.commands.mcp_stdio import guarded_stdio
    from acai_desktop.core.memory.front_door import open_memory
    from acai_desktop.core.profile.outside_changes import OutsideChanges

    # No re-embedding: when the window embeds with the provider's model, this server
    # (WordLlama) would rewrite every memory's vector, and the window would redo them all
    # at its next start. Memories it has no vector for are still found by their words.
    async with open_memory(profile, reembed=False) as memory:
        outside = OutsideChanges(memory, memory.events)
        await outside.start()
        server = build_server(memory, outside)
        # The SDK's run_stdio_async, with the frame gate (mcp_stdio) in front of its
        # transport; MCPServer has no public handle on its protocol server.
        lowlevel = server._lowlevel_server
        async with guarded_stdio() as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
