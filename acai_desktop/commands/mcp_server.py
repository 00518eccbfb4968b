"""The MCP server's tools and resources over the profile's memory (``acai-desktop mcp``
builds it; kept apart so the SDK loads only when the server runs).

A JSON adapter over :class:`~acai_desktop.core.memory.front_door.Memory`, the front door
the window and the ``memories`` command use too: ``search_memory`` is ``Memory.search``,
``recall_messages`` ``Memory.recall``, and ``remember`` ``Memory.intake``, which writes
through the app's rules: the text is validated, the grounding check must find the fact
in the user's words the client quotes, a fact already remembered is not stored twice,
and with "Ask before remembering" on it becomes a suggestion the window shows for
approval. A fact with no words of the user (no ``user_said``) is the client's claim
only: always a suggestion, never a memory or a user message on its own. Every write
names the client in the memory's history ("Claude Desktop via MCP").

Text from a client is data, like the user's own messages: stored and shown as plain
text, quoted into prompts through ``core/prompt_quoting``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

from acai_desktop import __version__
from acai_desktop.core.errors import AcaiError, NotFoundError
from acai_desktop.core.memory.front_door import Memory, MemoryFilter, Via
from acai_desktop.core.memory.intake import IntakeOutcome
from acai_desktop.core.profile.outside_changes import OutsideChanges
from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.core.redaction import redact

#: clientInfo names of well-known clients, as their users know them.
KNOWN_CLIENTS = {"claude-ai": "Claude Desktop", "cursor-vscode": "Cursor"}
INSTRUCTIONS = (
    "ACAI Desktop's long-term memory of the user. Search it before answering questions "
    "about the user; call remember when the user tells you something durable about "
    "themselves, quoting their own words in user_said. Memory is not truth: it says "
    "what the user once said."
)
#: The most results a tool returns at once.
MAX_RESULTS = 50


def client_name(ctx: Any) -> str:
    """The MCP client's name as its user knows it (from its clientInfo)."""
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    if info is None:
        return "an MCP client"
    name = " ".join(str(info.name).split())[:60]
    title = getattr(info, "title", None)
    return KNOWN_CLIENTS.get(name) or (" ".join(str(title).split())[:60] if title else name)


@contextmanager
def told_to_the_client(error_type: type[Exception] = ToolError) -> Iterator[None]:
    """The app's own refusals ("The fact is too long: at most 20,000 characters") go to
    the client as the tool's error text; the SDK shows a client only "Error executing
    tool" for any other exception, and keeps the reason on standard error."""
    try:
        yield
    except NotFoundError as error:
        wanted = ResourceNotFoundError if error_type is ResourceError else error_type
        raise wanted(redact(str(error))) from error
    except AcaiError as error:
        raise error_type(redact(str(error))) from error


def remember_reply(outcome: IntakeOutcome, local_only: Collection[int]) -> dict:
    """``remember``'s reply: its status, and the memory, the suggestion or the reason
    (a memory of ``local_only``'s ids is named by its id alone: it stays in ACAI)."""
    reply: dict = {"status": outcome.status.value}
    if outcome.memory is not None and outcome.memory.id in local_only:
        reply["memory"] = {"id": outcome.memory.id, "local_only": True}
    elif outcome.memory is not None:
        reply["memory"] = Memory.to_json(outcome.memory)
    if outcome.suggestion is not None:
        reply["suggestion_id"] = outcome.suggestion.id
    if outcome.reason:
        reply["reason"] = outcome.reason
    return reply


def build_server(memory: Memory, outside: OutsideChanges) -> MCPServer:
    server = MCPServer(
        name="acai-desktop", title="ACAI Desktop memory", version=__version__,
        instructions=INSTRUCTIONS,
    )  # fmt: skip

    async def caught_up(ctx: Context | None) -> Via:
        """The client asking, once the memory has what the window wrote since the
        last request."""
        await outside.check()
        return Via(client_name(ctx) if ctx is not None else "an MCP client")

    # What the user marked local only stays in ACAI Desktop: a client may hand what it
    # reads to a model that runs elsewhere (core/store/local_only.py).

    @server.tool(description="Find the user's memories that match a question or topic.")
    async def search_memory(query: str, k: int = 10, ctx: Context = None) -> dict:
        with told_to_the_client():
            await caught_up(ctx)
            hits = await memory.search(query, _bounded(k))
            hidden = (await memory.local_only()).memory_ids
        return {
            "memories": [
                {**Memory.to_json(hit.memory), "score": hit.score, "reasons": hit.reasons}
                for hit in hits
                if hit.memory.id not in hidden
            ]
        }

    @server.tool(description="List the user's current memories, pinned first, a page at a time.")
    async def list_memories(
        limit: int = 20, offset: int = 0, category: str | None = None, ctx: Context = None
    ) -> dict:
        page = MemoryFilter(category=category, limit=_bounded(limit), offset=max(0, int(offset)))
        with told_to_the_client():
            await caught_up(ctx)
            total = await memory.count(MemoryFilter(category=category))
            items = await memory.list(page)
            hidden = (await memory.local_only()).memory_ids
        shown = [Memory.to_json(item) for item in items if item.id not in hidden]
        return {"total": total, "memories": shown, "local_only_left_out": len(items) - len(shown)}

    @server.tool(
        description="Remember a durable fact about the user. Quote the user's own words it "
        "comes from in user_said: the fact is stored only if they say it. Without "
        "user_said, or when the user reviews new memories first, nothing is stored: it "
        "waits for their approval in ACAI Desktop. The reply's status says which: "
        "remembered, suggested, already_remembered or refused (with a reason)."
    )
    async def remember(
        fact: str, user_said: str | None = None, category: str | None = None, ctx: Context = None
    ) -> dict:
        with told_to_the_client():
            via = await caught_up(ctx)
            outcome = await memory.intake(fact, user_said, via, category)
            return remember_reply(outcome, (await memory.local_only()).memory_ids)

    @server.tool(
        description="Keep one of the user's memories on their computer: from now on it "
        "never reaches a model that runs elsewhere, nor any MCP client. Only the user can "
        "undo this, in ACAI Desktop."
    )
    async def keep_memory_local(memory_id: int, ctx: Context = None) -> dict:
        with told_to_the_client():
            await caught_up(ctx)
            kept = await memory.set_local_only(int(memory_id), True)
        return {"memory_id": kept.id, "local_only": kept.local_only}

    @server.tool(
        description="Find what was said in the user's past conversations (in ACAI Desktop "
        "or imported from other assistants) about a question or topic."
    )
    async def recall_messages(query: str, k: int = 5, ctx: Context = None) -> dict:
        with told_to_the_client():
            await caught_up(ctx)
            hits = await memory.recall(query, _bounded(k))
            hidden = (await memory.local_only()).message_ids
        return {
            "messages": [
                {
                    "conversation_id": hit.message.conversation_id,
                    "conversation": hit.message.conversation_title,
                    "speaker": hit.message.speaker,
                    "content": hit.message.content,
                    "created_at": hit.message.created_at,
                    "score": hit.score,
                }
                for hit in hits
                if hit.message.id not in hidden
            ]
        }

    @server.resource(
        "acai://memories/pinned",
        name="pinned-memories",
        description="Every pinned memory: what the user wants always remembered.",
        mime_type="text/plain",
    )
    async def pinned_memories() -> str:
        with told_to_the_client(ResourceError):
            await caught_up(None)
            items = await memory.list(MemoryFilter(pinned=True))
            hidden = (await memory.local_only()).memory_ids
        pinned = [i for i in items if i.status == MemoryStatus.ACTIVE and i.id not in hidden]
        return "\n".join(f"- {item.content}" for item in pinned) or "(no pinned memories)"

    @server.resource(
        "acai://memories/{memory_id}",
        name="memory",
        description="One memory, by its id.",
        mime_type="application/json",
    )
    async def one_memory(memory_id: str) -> dict:
        if not memory_id.isdigit():
            raise ResourceNotFoundError(f"There is no memory {memory_id!r}: ids are numbers.")
        with told_to_the_client(ResourceError):
            await caught_up(None)
            if int(memory_id) in (await memory.local_only()).memory_ids:
                raise ResourceNotFoundError(
                    f"Memory {memory_id} is local only: it stays in ACAI Desktop."
                )
            return Memory.to_json(await memory.get(int(memory_id)))

    return server


def _bounded(k: int) -> int:
    return max(1, min(int(k), MAX_RESULTS))
