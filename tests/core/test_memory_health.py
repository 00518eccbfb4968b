"""Memory health figures on a real SQLite file: a known profile (three facts on two days,
one superseded, one never used, a note, one answer's provenance) gives known counts."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from acai_desktop.core.memory.health import STALE_AFTER_DAYS, read_memory_health
from acai_desktop.core.records.conversations import AnswerSource
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.store.store_url import is_server_url
from tests.support.aio import run
from tests.support.memory import memory_services

NOW = datetime.now(UTC)
# Noon UTC, so the local day is the same in every time zone within twelve hours of UTC.
FIRST_DAY = (NOW - timedelta(days=STALE_AFTER_DAYS + 30)).replace(hour=12, minute=0)
SECOND_DAY = (NOW - timedelta(days=STALE_AFTER_DAYS + 10)).replace(hour=12, minute=0)


def local_day(moment: datetime) -> date:
    return moment.astimezone().date()


async def known_profile(store, service):
    paris = await service.remember("The user lives in Paris", explicit=True)
    nurse = await service.remember("The user works as a nurse", explicit=True)
    berlin = await service.propose_change(
        paris.id, "The user lives in Berlin", actor="critical_info_processor"
    )
    note = await service.remember("Call the bank on Friday", kind="note", explicit=True)

    def backdate(db) -> None:
        with db.atomic():
            for memory_id, moment in ((paris.id, FIRST_DAY), (nurse.id, FIRST_DAY),
                                      (berlin.id, SECOND_DAY)):  # fmt: skip
                db.execute(
                    "UPDATE memories SET created_at = ? WHERE id = ?",
                    [moment.isoformat(timespec="microseconds"), memory_id],
                )

    await store.run(backdate)
    await service.mark_used([berlin.id, note.id])
    conversations = ConversationRepository(store)
    chat = await conversations.create("Where do I live?")
    answer = await conversations.add_message(chat.id, "assistant", "You live in Berlin.")
    await ProvenanceRepository(store).record(
        answer.id, [AnswerSource(answer.id, berlin.id, 1, 0.8, ["semantic"])]
    )
    return paris, nurse, berlin, note


def test_a_known_profile_gives_known_figures(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _log,
        ):
            await known_profile(store, service)
            health = await read_memory_health(store)
            if store.dialect == "postgresql":  # the database on the server; no WAL here
                size = "SELECT pg_database_size(current_database())"
                return health, await store.run(lambda db: db.execute(size).fetchone()[0])
            # The WAL is folded back when the store closes: measure while it is open.
            path = Path(store.path)
            wal = path.with_name(path.name + "-wal")
            return health, os.stat(path).st_size + (os.stat(wal).st_size if wal.exists() else 0)

    health, on_disk = run(scenario())
    assert health.count("fact", "active") == 2
    assert health.count("fact", "superseded") == 1
    assert health.count("note", "active") == 1
    assert health.count("summary", "active") == 0
    assert (health.total, health.current) == (4, 3)
    assert [(d.day, d.count) for d in health.facts_per_day] == [
        (local_day(FIRST_DAY), 2),
        (local_day(SECOND_DAY), 1),
    ]
    assert [(d.day, d.count) for d in health.uses_per_day] == [(local_day(NOW), 1)]
    assert health.use_counts == [("0", 1), ("1", 2), ("2–4", 0), ("5–9", 0), ("10+", 0)]
    assert health.never_used == 1  # the nurse fact
    # The nurse fact was created over STALE_AFTER_DAYS ago and never used; Berlin is
    # older too but was used today; Paris is superseded and counts as stale for that.
    assert (health.unused_long, health.superseded_kept, health.stale) == (1, 1, 2)
    assert health.database.file_bytes > 0
    assert health.database.wal_bytes > 0 or is_server_url(store_location)
    assert health.database.total_bytes == on_disk


def test_time_makes_unused_memories_stale(store_location, tmp_path):
    """Read as if STALE_AFTER_DAYS more days had passed: every current memory is stale."""

    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _log,
        ):
            await known_profile(store, service)
            later = NOW + timedelta(days=STALE_AFTER_DAYS + 1)
            return await read_memory_health(store, now=later)

    health = run(scenario())
    assert health.unused_long == 3
    assert health.stale == 4


def test_an_empty_profile_reads_as_zeros(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _log,
        ):
            return await service.health()

    health = run(scenario())
    assert (health.total, health.current, health.never_used, health.stale) == (0, 0, 0, 0)
    assert health.facts_per_day == [] and health.uses_per_day == []
    assert [count for _, count in health.use_counts] == [0, 0, 0, 0, 0]
    assert health.database.file_bytes > 0  # the schema alone takes pages
