"""Temporary chats last as long as the program that opened them: deleted at close, and at
the next start when a crash left them behind. Normal chats stay."""

from __future__ import annotations

import sqlite3

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from tests.support.aio import run
from tests.support.assistant import configure_profile, running_assistant


def titles(profile_db) -> list[tuple[str, int]]:
    with sqlite3.connect(profile_db) as db:
        return db.execute("select title, temporary from conversations order by id").fetchall()


def test_temporary_chats_are_deleted_at_close_and_normal_ones_stay(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            await assistant.conversations.create("kept")
            scratch = await assistant.conversations.create("scratch", temporary=True)
            await assistant.conversations.add_message(scratch.id, "user", "Gift ideas?")
            return assistant.profile.database_path

    database = run(scenario())
    assert titles(database) == [("kept", 0)]


def test_temporary_chats_a_crash_left_go_at_the_next_start(tmp_path, fake_openai):
    profile = configure_profile(tmp_path, fake_openai)

    async def first_run():
        assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        await assistant.conversations.create("kept")
        await assistant.close()

    run(first_run())
    with sqlite3.connect(profile.database_path) as db:  # as a killed process leaves it
        db.execute(
            "insert into conversations (title, created_at, updated_at, temporary) "
            "values ('left behind', '2026-01-01', '2026-01-01', 1)"
        )

    async def next_start():
        assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
        try:
            return [c.title for c in await assistant.conversations.list()]
        finally:
            await assistant.close()

    assert run(next_start()) == ["kept"]
