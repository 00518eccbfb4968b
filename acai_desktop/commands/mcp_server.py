"""The MCP server's tools and resources over the profile's memory (``acai-desktop mcp``
builds it; kept apart so the SDK loads only when the server runs)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

from acai_desktop import __version__
from acai_desktop.core.errors import AcaiError, NotFoundError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory_clients import MemoryForClients, memory_dict
from acai_desktop.core.outside_changes import OutsideChanges
from acai_desktop.core.profile import Profile
from acai_desktop.core.redaction import redact

#: clientInfo names of well-known clients, as their users know them.
KNOWN_CLIENTS = {"claude-ai": "Claude Desktop", "cursor-vscode": "Cursor"}
INSTRUCTIONS = (
    "ACAI Desktop's long-term memory of the user. Search it before answering questions "
    "about the user; call remember when the user tells you something durable about "
    "themselves, quoting their own words in user_said. Memory is not truth: it says "
    "what the user once said."
)


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


def build_server(
    profile: Profile, service: MemoryService, events: EventBus, outside: OutsideChanges
) -> MCPServer:
    server = MCPServer(
        name="acai-desktop", title="ACAI Desktop memory", version=__version__,
        instructions=INSTRUCTIONS,
    )  # fmt: skip
    by_client: dict[str, MemoryForClients] = {}

    async def access(ctx: Context | None) -> MemoryForClients:
        await outside.check()  # what the window wrote since the last request
        name = client_name(ctx) if ctx is not None else "an MCP client"
        if name not in by_client:
            by_client[name] = MemoryForClients(profile, service, events, name)
        return by_client[name]

    @server.tool(description="Find the user's memories that match a question or topic.")
    async def search_memory(query: str, k: int = 10, ctx: Context = None) -> dict:
        with told_to_the_client():
            return {"memories": await (await access(ctx)).search(query, k)}

    @server.tool(description="List the user's current memories, pinned first, a page at a time.")
    async def list_memories(
        limit: int = 20, offset: int = 0, category: str | None = None, ctx: Context = None
    ) -> dict:
        with told_to_the_client():
            return await (await access(ctx)).list(limit, offset, category)

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
            outcome = await (await access(ctx)).remember(fact, user_said, category)
        return outcome.to_dict()

    @server.tool(
        description="Find what was said in the user's past conversations (in ACAI Desktop "
        "or imported from other assistants) about a question or topic."
    )
    async def recall_messages(query: str, k: int = 5, ctx: Context = None) -> dict:
        with told_to_the_client():
            return {"messages": await (await access(ctx)).recall(query, k)}

    @server.resource(
        "acai://memories/pinned",
        name="pinned-memories",
        description="Every pinned memory: what the user wants always remembered.",
        mime_type="text/plain",
    )
    async def pinned_memories() -> str:
        with told_to_the_client(ResourceError):
            items = await (await access(None)).pinned()
        return "\n".join(f"- {item.content}" for item in items) or "(no pinned memories)"

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
            await outside.check()
            return memory_dict(await service.get(int(memory_id)))

    return server
