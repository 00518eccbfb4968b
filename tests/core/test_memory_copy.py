""" "Copy my local memory to the server": every row arrives, a second run adds nothing, a
run cut off midway is finished by the next, and the counts say so (issue 27 item 2).
A real SQLite profile copied into the real throwaway PostgreSQL server."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3

import psycopg
import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile import memory_copy
from acai_desktop.core.profile.memory_copy import copy_local_memory
from acai_desktop.core.profile.store_choice import ServerAddress, parse_server_url
from tests.support.memory import memory_services
from tests.support.old_profile import old_profile

MESSAGES = 1_200  # more than two batches


async def _local_profile(data_dir) -> None:
    old_profile(data_dir, messages=MESSAGES)  # an older schema: the copy updates it first
    async with memory_services(data_dir) as (_store, service, _log):
        first = await service.remember("My sister is called Ada.", sources=[1], explicit=True)
        await service.remember("I live in Lyon.", explicit=True)
        newer = await service.remember("My sister is called Ada Lovelace.", explicit=True)
        await service.edit(newer.id, "My sister is Ada Lovelace, a mathematician.")
    with sqlite3.connect(data_dir / "acai.sqlite3") as connection:  # a link to a later row
        connection.execute(
            "UPDATE memories SET status = 'superseded', superseded_by = ? WHERE id = ?",
            (newer.id, first.id),
        )


def _server(url: str) -> ServerAddress:
    return parse_server_url(url)


def _server_rows(url: str, sql: str):
    with psycopg.connect(url) as connection:
        return connection.execute(sql).fetchall()


@pytest.fixture
def local(tmp_path):
    asyncio.run(_local_profile(tmp_path))
    return tmp_path / "acai.sqlite3"


def test_the_copy_is_complete_idempotent_and_counted(local, postgres_url):
    seen = []
    report = asyncio.run(copy_local_memory(local, _server(postgres_url), None, seen.append))
    assert report.complete
    assert report.count_of("messages").local == MESSAGES
    assert report.count_of("messages").on_server == MESSAGES
    assert report.count_of("conversations").on_server == MESSAGES // 20
    assert report.count_of("memories").on_server == 3
    assert report.count_of("memory_events").on_server >= 4  # three made, one edited
    assert report.count_of("memory_sources").on_server == 1
    assert seen and seen[-1].rows_done == seen[-1].rows_total  # progress to the end
    assert "messages: 1200 of 1200 on the server" in report.summary()

    # The links survive, the later-row link too, and the server's own ids go on after.
    (superseded_by,) = _server_rows(
        postgres_url, "SELECT superseded_by FROM memories WHERE status = 'superseded'"
    )[0]
    assert superseded_by == 3
    (next_id,) = _server_rows(
        postgres_url,
        "INSERT INTO conversations (title, created_at, updated_at, temporary) "
        "VALUES ('new', '2026-12-01', '2026-12-01', FALSE) RETURNING id",
    )[0]
    assert next_id == MESSAGES // 20 + 1

    again = asyncio.run(copy_local_memory(local, _server(postgres_url), None))
    assert again.complete and again.rows_added == 0
    assert _server_rows(postgres_url, "SELECT count(*) FROM messages")[0][0] == MESSAGES


def test_a_copy_cut_off_midway_is_finished_by_the_next(local, postgres_url, monkeypatch):
    real_insert = memory_copy._insert
    calls = []

    def insert_then_lose_the_server(server, table, batch):
        if table.name == "messages" and len([c for c in calls if c == "messages"]) == 1:
            server.close()  # the network goes away after one batch of messages
        calls.append(table.name)
        return real_insert(server, table, batch)

    monkeypatch.setattr(memory_copy, "_insert", insert_then_lose_the_server)
    with pytest.raises(Exception, match="run the copy again to finish it"):
        asyncio.run(copy_local_memory(local, _server(postgres_url), None))
    kept = _server_rows(postgres_url, "SELECT count(*) FROM messages")[0][0]
    assert kept == memory_copy.BATCH_ROWS  # the committed batch stays

    monkeypatch.setattr(memory_copy, "_insert", real_insert)
    report = asyncio.run(copy_local_memory(local, _server(postgres_url), None))
    assert report.complete
    assert report.rows_added > 0 and report.count_of("messages").on_server == MESSAGES


def test_a_server_holding_another_memory_is_refused(local, postgres_url, tmp_path):
    asyncio.run(copy_local_memory(local, _server(postgres_url), None))
    with psycopg.connect(postgres_url) as connection:
        connection.execute("UPDATE conversations SET created_at = '2001-01-01' WHERE id = 2")
    with pytest.raises(InvalidInputError, match="already holds a different memory"):
        asyncio.run(copy_local_memory(local, _server(postgres_url), None))


def test_a_server_that_cannot_be_used_is_refused_with_its_reason(local, postgres_url):
    from acai_desktop.core.errors import StoreUnavailableError

    missing = dataclasses.replace(parse_server_url(postgres_url), database="not_made_yet")
    with pytest.raises(StoreUnavailableError, match="no database named"):
        asyncio.run(copy_local_memory(local, missing, None))
