"""What another connection writes (the MCP server, an import beside the window, another
computer on the PostgreSQL store) reaches this process: its indexes and, as events, the
window."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.importer import import_conversations, read_export
from acai_desktop.core.errors import StoreUnavailableError
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile.outside_changes import OutsideChanges
from acai_desktop.core.profile.server_check import ProblemKind, ServerProblem
from acai_desktop.core.records.memories import SuggestionDraft
from acai_desktop.core.store.suggestions import propose_suggestion
from tests.support.aio import run
from tests.support.memory import memory_services

CLAUDE = Path(__file__).parents[1] / "fixtures" / "chat_exports" / "claude_conversations.json"


def test_writes_of_another_connection_are_published_once(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            window,
            log,
        ):
            heard = []
            for kind in (ev.SuggestionsChanged, ev.ConversationChanged):
                window.events.subscribe(kind, heard.append)
            wakes = []
            outside = OutsideChanges(window, window.events, lambda: wakes.append(1))
            await outside.start()
            quiet = await outside.check()
            async with memory_services(tmp_path, store_location=store_location) as (
                other_store,
                other,
                _other_log,
            ):
                await import_conversations(
                    other_store, other, EventBus(), read_export("claude", CLAUDE),
                    LearningBudget.parse("none"),
                )  # fmt: skip
                memory = await other.remember("The user lives in Porto", explicit=True)
                draft = SuggestionDraft(1, 1, "The user runs marathons", "x", "Health", 0.9)
                await other_store.run(propose_suggestion, draft)
            noticed = await outside.check()
            again = await outside.check()
            recalled = sorted(int(i) for i in window.episodes.index.ids)
            added = log.memories(ev.MemoryAdded)
            return quiet, noticed, again, memory, added, heard, recalled, len(wakes)

    quiet, noticed, again, memory, added, heard, recalled, wakes = run(scenario())
    assert (quiet, noticed, again) == (False, True, False)
    assert wakes == 1  # jobs may have been queued: the runner looks now
    assert [item.id for item in added] == [memory.id]
    assert [type(e).__name__ for e in heard] == [
        "SuggestionsChanged", *["ConversationChanged"] * 3,
    ]  # fmt: skip
    assert recalled == list(range(1, 10))  # the imported messages, recalled by meaning here too


def test_another_computers_memory_reaches_this_one_when_the_server_says_so(postgres_url, tmp_path):
    """PostgreSQL: LISTEN/NOTIFY wakes the follower (no polling loop: the check period
    is an hour, so only a notice can bring the memory in)."""

    async def scenario():
        async with memory_services(tmp_path, store_location=postgres_url) as (_s, window, log):
            arrived = asyncio.Event()
            window.events.subscribe(ev.MemoryAdded, lambda _event: arrived.set())
            outside = OutsideChanges(window, window.events)
            follower = asyncio.create_task(outside.run(seconds=3600))
            try:
                async with memory_services(tmp_path, store_location=postgres_url) as (
                    _other_store,
                    other,
                    _other_log,
                ):
                    # Written only once the follower listens, so the notice is its news.
                    await asyncio.wait_for(outside.following.wait(), timeout=30)
                    memory = await other.remember("The user lives in Porto", explicit=True)
                    await asyncio.wait_for(arrived.wait(), timeout=30)
            finally:
                follower.cancel()
                await asyncio.gather(follower, return_exceptions=True)
            return memory, log.memories(ev.MemoryAdded), window.index.ids

    memory, added, indexed = run(scenario())
    assert [item.id for item in added] == [memory.id]
    assert memory.id in [int(i) for i in indexed]


class _ListeningStore:
    """A PostgreSQL store in one respect: it says "listening" and then the server goes
    before this process has read its cursors."""

    dialect = "postgresql"

    def __init__(self) -> None:
        self.listening_closed = False

    async def changes(self):
        try:
            yield ""
            await asyncio.Event().wait()  # no notice comes
        finally:
            self.listening_closed = True  # the LISTEN connection is closed here

    async def run(self, *_args, **_kwargs):
        problem = ServerProblem(ProblemKind.UNREACHABLE, "The server went away.", "Wait.")
        raise StoreUnavailableError(problem)


def test_the_listening_connection_is_closed_on_the_loop_when_the_server_goes():
    """Left to the garbage collector, the listener's connection was closed outside any
    loop, after the test had ended ("async generator ignored GeneratorExit")."""
    store = _ListeningStore()
    seen: list[bool] = []

    async def scenario():
        events = EventBus()
        events.subscribe(ev.StoreLost, lambda _event: seen.append(store.listening_closed))
        memories = SimpleNamespace(store=store, embedder=None)
        follower = asyncio.create_task(OutsideChanges(memories, events).run(seconds=3600))
        while not seen:
            await asyncio.sleep(0)
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)

    run(asyncio.wait_for(scenario(), timeout=30))
    assert seen == [True]


def test_many_memories_written_outside_are_told_as_one_bulk_change(tmp_path, monkeypatch):
    from acai_desktop.core.profile import outside_changes

    monkeypatch.setattr(outside_changes, "BULK_CHANGES", 3)
    facts = [f"The user has visited city number {n}" for n in range(5)]

    async def scenario():
        async with memory_services(tmp_path) as (_store, window, log):
            bulk = []
            window.events.subscribe(ev.MemoriesChangedInBulk, bulk.append)
            outside = OutsideChanges(window, window.events)
            await outside.start()
            async with memory_services(tmp_path) as (_other_store, other, _other_log):
                for fact in facts:
                    await other.remember(fact, explicit=True)
            before = len(window.index.ids)
            await outside.check()
            return bulk, log.memories(ev.MemoryAdded), before, len(window.index.ids)

    bulk, added, before, after = run(scenario())
    assert [event.count for event in bulk] == [5] and added == []
    assert after == before + 5  # the index has them all
