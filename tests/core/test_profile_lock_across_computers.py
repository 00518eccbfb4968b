"""With the memory on a PostgreSQL server the profile lock is per computer, for its local
files only (issue 27 item 3): two data dirs open one database at once, one data dir is
still one process's; and what the lock protected on one computer (a start marks the
answers a crash left streaming as stopped) leaves another live computer's answer alone."""

from __future__ import annotations

import pytest

from acai_desktop.core.profile.data import open_profile_data
from acai_desktop.core.profile.lock import LOCK_FILE, ProfileInUseError
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_choice import parse_server_url
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.store.conversations import add_turn, create_conversation, update_message
from tests.support.aio import run


def _computer(tmp_path, name: str, url: str) -> Profile:
    return Profile.at(tmp_path / name, server=parse_server_url(url))


def test_two_data_dirs_open_one_database_at_once_and_one_data_dir_stays_one_processs(
    postgres_url, tmp_path
):
    desktop, laptop = (
        _computer(tmp_path, "desktop", postgres_url),
        _computer(tmp_path, "laptop", postgres_url),
    )

    async def scenario():
        on_desktop = await open_profile_data(desktop)
        try:
            on_laptop = await open_profile_data(laptop)  # another computer: it opens
            try:
                with pytest.raises(ProfileInUseError):
                    await open_profile_data(desktop)  # the same data dir: refused
                both = [await data.store.read(_server_pid) for data in (on_desktop, on_laptop)]
            finally:
                await on_laptop.aclose()
        finally:
            await on_desktop.aclose()
        return both

    both = run(scenario())
    assert len(set(both)) == 2  # two sessions on the one database, at once
    assert (desktop.data_dir / LOCK_FILE).exists() and (laptop.data_dir / LOCK_FILE).exists()


def _server_pid(db) -> int:
    return db.execute("SELECT pg_backend_pid()").fetchone()[0]


def test_a_start_leaves_the_answer_another_computer_is_writing_streaming(postgres_url, tmp_path):
    desktop, laptop = (
        _computer(tmp_path, "desktop", postgres_url),
        _computer(tmp_path, "laptop", postgres_url),
    )

    async def scenario():
        on_desktop = await open_profile_data(desktop)
        conversation = await on_desktop.store.run(create_conversation)
        writing = (await on_desktop.store.run(add_turn, conversation.id, "Hello")).answer
        done = (await on_desktop.store.run(add_turn, conversation.id, "Again")).answer
        await on_desktop.store.run(
            update_message, done.id, content="Hi", status=MessageStatus.COMPLETE
        )
        on_laptop = await open_profile_data(laptop)  # starts while the desktop writes
        while_writing = await on_laptop.conversations.store.run(_status, writing.id)
        await on_laptop.aclose()
        await on_desktop.aclose()  # the desktop goes away with its answer unfinished
        after = await open_profile_data(laptop)
        after_it_went = await after.store.run(_status, writing.id)
        await after.aclose()
        return while_writing, after_it_went

    while_writing, after_it_went = run(scenario())
    assert while_writing == "streaming"  # still being written on the desktop
    assert after_it_went == "stopped"  # nobody writes it any more: a start says so


def _status(db, message_id: int) -> str:
    return db.execute("SELECT status FROM messages WHERE id = ?", [message_id]).fetchone()[0]
