"""What another connection writes (the MCP server, an import beside the window) reaches
this process: its indexes and, as events, the window."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.chat_import.budget import LearningBudget
from acai_desktop.core.chat_import.importer import import_conversations, read_export
from acai_desktop.core.events import EventBus
from acai_desktop.core.outside_changes import OutsideChanges
from acai_desktop.core.records import SuggestionDraft
from acai_desktop.core.store.suggestions import propose_suggestion
from tests.support.aio import run
from tests.support.memory import memory_services

CLAUDE = Path(__file__).parents[1] / "fixtures" / "chat_exports" / "claude_conversations.json"


def test_writes_of_another_connection_are_published_once(tmp_path):
    async def scenario():
        async with memory_services(tmp_path) as (_store, window, log):
            heard = []
            for kind in (ev.SuggestionsChanged, ev.ConversationChanged):
                window.events.subscribe(kind, heard.append)
            wakes = []
            outside = OutsideChanges(window, window.events, lambda: wakes.append(1))
            await outside.start()
            quiet = await outside.check()
            async with memory_services(tmp_path) as (other_store, other, _other_log):
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
