"""The paged memories model over the real memory service (SQLite file, WordLlama), on
qasync's loop: pages, counts, queries and live updates, checked by qtmodeltester."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import qasync
from PySide6.QtCore import QModelIndex

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.memory.listing import PanelQuery
from acai_desktop.core.memory.service import MemoryDraft, MemoryService
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app import create_application
from acai_desktop.ui.models.memories_model import MemoriesModel, MemoryRoles
from tests.support.gui import wait_until
from tests.support.memory import shared_embedder

PAGE = 5


def run_on_qt_loop(coro_fn: Callable[[], Awaitable[None]]) -> None:
    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(coro_fn())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def ids(model: MemoriesModel) -> list[int]:
    return [model.index(row).data(MemoryRoles.ID) for row in range(model.rowCount())]


async def settled(model: MemoriesModel) -> None:
    """Wait until no page or count is being read."""
    await wait_until(lambda: model.settled)


async def scroll_to_end(model: MemoriesModel) -> None:
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
        await settled(model)


async def open_model(service: MemoryService, bus: EventBus) -> MemoriesModel:
    model = MemoriesModel(page_size=PAGE)
    for event_type, slot in (
        (ev.MemoryAdded, model.on_memory_added),
        (ev.MemoryChanged, model.on_memory_changed),
        (ev.MemoryRemoved, model.on_memory_removed),
    ):
        bus.subscribe(event_type, lambda event, slot=slot: slot(event.memory))
    await asyncio.wait([model.attach(service.read_panel, service.count_panel)])
    return model


def test_pages_counts_queries_and_live_updates(qapp, qtmodeltester, tmp_path):
    async def scenario() -> None:
        bus = EventBus()
        async with open_memory(
            Profile.at(tmp_path), embedder=shared_embedder(), events=bus
        ) as service:
            items = await service.remember_many(
                [MemoryDraft(f"The user noted thing number {n}") for n in range(12)],
                explicit=True,
            )
            newest_first = [item.id for item in reversed(items)]
            model = await open_model(service, bus)
            # Only the first page is loaded; the counts come from SQL.
            assert ids(model) == newest_first[:PAGE]
            assert (model.matching_count, model.total_count) == (12, 12)
            qtmodeltester.check(model, force_py=True)  # stays connected to every change
            await settled(model)
            await scroll_to_end(model)
            assert ids(model) == newest_first
            assert not model.canFetchMore(QModelIndex())

            # A new memory shows at the top without a reload, and is counted.
            added = await service.remember("The user adopted a cat named Miso", explicit=True)
            assert ids(model)[0] == added.id and model.matching_count == 13
            # An edit changes the row in place.
            await service.edit(items[3].id, "The user noted thing number three, edited")
            row = model.row_of(items[3].id)
            assert model.index(row).data(MemoryRoles.CONTENT).endswith("edited")
            assert model.index(row).data(MemoryRoles.USER_EDITED) is True
            # Forget leaves; restore comes back at its place in the order.
            await service.forget(items[5].id)
            assert model.row_of(items[5].id) is None and model.matching_count == 12
            await service.restore(items[5].id)
            assert ids(model) == [added.id, *newest_first]
            await settled(model)
            assert (model.matching_count, model.total_count) == (13, 13)

            # A filter is the core's query: pinning joins it, unpinning leaves it.
            model.set_query(PanelQuery.of("", "Pinned"))
            await settled(model)
            assert ids(model) == [] and (model.matching_count, model.total_count) == (0, 13)
            await service.pin(items[2].id)
            assert ids(model) == [items[2].id] and model.matching_count == 1
            await service.unpin(items[2].id)
            assert ids(model) == []
            # Search: every word, any case, done by the database.
            model.set_query(PanelQuery.of("NUMBER 1"))
            await settled(model)
            assert ids(model) == [items[11].id, items[10].id, items[1].id]
            assert model.matching_count == 3 and not model.canFetchMore(QModelIndex())
            await service.remember("The user noted number 100 too", explicit=True)
            assert model.matching_count == 4 and len(ids(model)) == 4
            await service.remember("Something else entirely", explicit=True)
            assert len(ids(model)) == 4  # not a match: not shown
            await settled(model)
            assert (model.matching_count, model.total_count) == (4, 15)

            # Back to everything: a changed memory beyond the loaded page stays unloaded
            # (a later page brings it) and the counts settle from the database.
            model.set_query(PanelQuery())
            await settled(model)
            # (qtmodeltester itself fetches one more page after a reset.)
            loaded = model.rowCount()
            assert loaded < 15 and model.canFetchMore(QModelIndex())
            assert items[0].id not in ids(model)
            await service.forget(items[0].id)  # the oldest: not loaded
            assert model.rowCount() == loaded
            await settled(model)
            assert model.matching_count == 14
            await scroll_to_end(model)
            assert model.rowCount() == 14 and items[0].id not in ids(model)

            await model.detach()
            assert model.rowCount() == 0 and model.total_count == 0

    run_on_qt_loop(scenario)


def test_many_live_additions_keep_the_loaded_rows_bounded(qapp, qtmodeltester, tmp_path):
    async def scenario() -> None:
        bus = EventBus()
        async with open_memory(
            Profile.at(tmp_path), embedder=shared_embedder(), events=bus
        ) as service:
            await service.remember("The first memory", explicit=True)
            model = await open_model(service, bus)
            qtmodeltester.check(model, force_py=True)
            # An import announcing many memories: the model keeps at most a page more.
            await service.remember_many(
                [MemoryDraft(f"Imported memory {n}") for n in range(3 * PAGE)], explicit=True
            )
            assert model.rowCount() == 1 + PAGE
            assert model.index(0).data(MemoryRoles.CONTENT) == f"Imported memory {3 * PAGE - 1}"
            await settled(model)
            assert model.total_count == 1 + 3 * PAGE
            await scroll_to_end(model)
            assert model.rowCount() == 1 + 3 * PAGE
            assert model.index(model.rowCount() - 1).data(MemoryRoles.CONTENT) == (
                "The first memory"
            )
            await model.detach()

    run_on_qt_loop(scenario)
