"""The Store: one connection on one thread, WAL, clear errors for damaged or read-only files."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from acai_desktop.core.errors import StoreError
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MEMORY_COLUMNS, Actor
from acai_desktop.core.store.database import Store, translate_sqlite_error
from acai_desktop.core.store.memories import MemoryRepository
from acai_desktop.core.store.memory_writes import insert_memory
from tests.support.aio import run
from tests.support.readonly import read_only

MEMORY = {"kind": "fact", "content": "I prefer tea", "origin": "user"}


async def insert(store: Store, values: dict) -> None:
    """A raw row write through the store (the layer under test; no service)."""

    def write(db):
        with db.atomic():
            insert_memory(db, values, actor=Actor.USER)

    await store.run(write)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_open_creates_a_wal_database_used_from_one_thread(tmp_path):
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        try:

            def settings(db):
                return (
                    threading.current_thread().name,
                    db.execute("PRAGMA journal_mode").fetchone()[0],
                    db.execute("PRAGMA busy_timeout").fetchone()[0],
                    db.execute("PRAGMA foreign_keys").fetchone()[0],
                )

            first = await store.run(settings)
            second = await store.run(settings)
            assert first == second
            thread, journal, busy, foreign_keys = first
            assert thread.startswith("acai-db") and thread != threading.current_thread().name
            assert (journal, busy, foreign_keys) == ("wal", 5000, 1)
            tables = await store.run(lambda db: set(db.table_names()))
            assert {
                "conversations",
                "messages",
                "memories",
                "memories_fts",
                "memory_sources",
                "memory_events",
                "answer_sources",
                "jobs",
            } <= tables
        finally:
            await store.close()
        with pytest.raises(StoreError, match="closed"):
            await store.run(lambda db: None)
        assert not (tmp_path / "acai.sqlite3-wal").exists()  # folded back on close

    run(scenario())


def test_a_broken_constraint_is_our_bug_it_raises_as_is_and_rolls_back(tmp_path):
    # Only the environment's faults (read-only, full, locked, damaged) become StoreError
    # messages for the user; a constraint failure is a bug and keeps its own type.
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        repository = MemoryRepository(store)
        try:

            def half_write(db):
                with db.atomic():
                    for title in ("first", "second"):
                        db.execute(
                            "INSERT INTO conversations (id, title, created_at, updated_at) "
                            "VALUES (1, ?, 'now', 'now')",
                            [title],
                        )

            with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed"):
                await store.run(half_write)
            count = await store.run(
                lambda db: db.execute("SELECT count(*) FROM conversations").fetchone()[0]
            )
            assert count == 0
            with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
                await insert(store, {**MEMORY, "conversation_id": 99})
            assert await repository.list() == []
        finally:
            await store.close()

    run(scenario())


@pytest.mark.parametrize(
    "garbage",
    [b"this is not a database\n" * 500, bytes(range(256)) * 40],
    ids=["text", "binary"],
)
def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path, garbage):
    path = tmp_path / "acai.sqlite3"
    path.write_bytes(garbage)

    async def scenario():
        with pytest.raises(StoreError, match="damaged or is not an ACAI Desktop database"):
            await Store.open(path)

    run(scenario())
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acai.sqlite3"]


def test_a_database_damaged_inside_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "acai.sqlite3"

    async def fill():
        store = await Store.open(path)
        for i in range(100):
            await insert(store, {**MEMORY, "content": f"memory {i} " * 30})
        await store.close()

    run(fill())
    page_size = 4096
    with path.open("r+b") as file:  # keep the header page, scribble over the rest
        file.seek(page_size * 3)
        file.write(b"\xab" * (path.stat().st_size - page_size * 3))
    before = digest(path)

    async def reopen():
        with pytest.raises(StoreError, match="damaged"):
            store = await Store.open(path)
            try:
                await MemoryRepository(store).list()
            finally:
                await store.close()

    run(reopen())
    assert digest(path) == before


@pytest.mark.parametrize("directory_too", [False, True], ids=["file", "file-and-directory"])
def test_a_read_only_database_gives_a_clear_error_and_is_not_changed(tmp_path, directory_too):
    path = tmp_path / "data" / "acai.sqlite3"
    path.parent.mkdir()

    async def make():
        store = await Store.open(path)
        await insert(store, MEMORY)
        await store.close()

    async def use() -> list[str]:
        notes = []
        try:
            store = await Store.open(path)
        except StoreError as error:
            return [f"open failed: {error}"]
        try:
            repository = MemoryRepository(store)
            notes.append(f"read {len(await repository.list())}")
            with pytest.raises(StoreError) as refused:
                await insert(store, {**MEMORY, "content": "new"})
            notes.append(f"write failed: {refused.value}")
        finally:
            await store.close()
        return notes

    run(make())
    before = digest(path)
    with read_only(path, directory=directory_too):
        notes = run(use())
        if directory_too:
            # WAL needs files beside the database: with the folder read-only too, the
            # database cannot even be opened, and the message says why.
            assert notes == [f"open failed: {expected_folder_error(path)}"]
        else:
            assert notes[0] == "read 1"  # reading still works; only writing is refused
            assert "read-only, so nothing can be saved" in notes[1], notes
        assert digest(path) == before
    # The control: once writable again, the same write goes through.
    assert "write failed" not in " ".join(run(use_writable(path)))


async def use_writable(path: Path) -> list[str]:
    store = await Store.open(path)
    try:
        repository = MemoryRepository(store)
        await insert(store, {**MEMORY, "content": "new"})
        return [f"read {len(await repository.list())}"]
    finally:
        await store.close()


def expected_folder_error(path: Path) -> str:
    return (
        f"The database {path} cannot be opened: the file or its folder is missing or "
        "read-only (SQLite keeps journal files beside the database). Check the "
        "permissions, or choose another data directory (--data-dir)."
    )


def sqlite_error(kind: type[sqlite3.Error], text: str, code: int) -> sqlite3.Error:
    error = kind(text)
    error.sqlite_errorcode = code  # what SQLite sets on the errors it raises
    return error


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (sqlite3.SQLITE_FULL, "is full"),
        (sqlite3.SQLITE_READONLY, "read-only, so nothing can be saved"),
        (sqlite3.SQLITE_READONLY | (1 << 8), "read-only"),  # an extended code
        (sqlite3.SQLITE_BUSY, "is busy: another program"),
        (sqlite3.SQLITE_LOCKED, "is busy: another program"),
        (sqlite3.SQLITE_CANTOPEN, "cannot be opened"),
        (sqlite3.SQLITE_IOERR, "could not read or write"),
        (sqlite3.SQLITE_CORRUPT, "damaged"),
        (sqlite3.SQLITE_NOTADB, "damaged"),
    ],
)
def test_the_environments_faults_are_told_by_error_code_not_message(tmp_path, code, expected):
    # The message says something else entirely: only the code counts.
    error = sqlite_error(sqlite3.OperationalError, "no such table: nonsense", code)
    translated = translate_sqlite_error(error, tmp_path / "acai.sqlite3")
    assert isinstance(translated, StoreError) and expected in str(translated)


@pytest.mark.parametrize(
    "error",
    [
        sqlite_error(sqlite3.OperationalError, "database is locked (read-only, disk full)", 1),
        sqlite_error(sqlite3.IntegrityError, "UNIQUE constraint failed", 2067),
        sqlite3.ProgrammingError("Cannot operate on a closed database."),  # no code at all
    ],
    ids=["generic-error-whose-text-lies", "constraint", "no-code"],
)
def test_anything_else_is_our_bug_and_not_translated(tmp_path, error):
    assert translate_sqlite_error(error, tmp_path / "acai.sqlite3") is None


def test_a_bug_in_sql_raises_as_itself_through_the_store(tmp_path):
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        try:
            with pytest.raises(sqlite3.OperationalError, match="no such table"):
                await store.run(lambda db: db.execute("SELECT * FROM no_such_table"))
        finally:
            await store.close()

    run(scenario())


def test_the_profile_and_its_database_files_are_readable_by_the_owner_only(tmp_path):
    old_umask = os.umask(0o022)  # the usual umask: files 0644, folders 0755
    try:
        profile = Profile.at(tmp_path / "deep" / "profile").ensure()

        async def scenario() -> dict[str, int]:
            store = await Store.open(profile.database_path)
            try:
                await insert(store, MEMORY)
                return {
                    p.name: stat.S_IMODE(p.stat().st_mode)
                    for p in profile.data_dir.iterdir()
                    if p.name.startswith("acai.sqlite3")
                }
            finally:
                await store.close()

        modes = run(scenario())
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(profile.data_dir.stat().st_mode) == 0o700
    # While open, in WAL mode, the journal files exist beside the database.
    assert modes == {"acai.sqlite3": 0o600, "acai.sqlite3-wal": 0o600, "acai.sqlite3-shm": 0o600}


def test_an_older_profile_is_made_private_when_opened(tmp_path):
    data_dir = tmp_path / "profile"
    data_dir.mkdir(mode=0o755)
    database = data_dir / "acai.sqlite3"
    sqlite3.connect(database).close()
    database.chmod(0o644)

    async def scenario():
        await (await Store.open(Profile.at(data_dir).ensure().database_path)).close()

    run(scenario())
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(database.stat().st_mode) == 0o600


def test_the_memory_record_spells_the_memories_columns_once(tmp_path):
    """Every column list of ``memories`` derives from MemoryItem's fields; the table has
    just one column more, the embedding itself, and a row reads back as it was written."""

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        try:
            await insert(store, {**MEMORY, "pinned": True, "meta": {"uid": "u1"}})
            columns = await store.run(
                lambda db: [row[1] for row in db.execute("PRAGMA table_info(memories)")]
            )
            [item] = await MemoryRepository(store).list()
            return columns, item
        finally:
            await store.close()

    columns, item = run(scenario())
    assert set(columns) - set(MEMORY_COLUMNS) == {"embedding"}
    assert set(MEMORY_COLUMNS) <= set(columns)
    assert (item.kind, item.content, item.origin) == ("fact", "I prefer tea", "user")
    assert item.pinned is True and item.user_edited is False and item.meta == {"uid": "u1"}
    assert set(item.to_public_dict()) == set(MEMORY_COLUMNS) - {"embedding_model", "meta"}


def test_an_open_cancelled_mid_migration_closes_what_it_opened(tmp_path, monkeypatch):
    """The app told to quit while the database thread still migrates: once that thread
    is done, the store closes its connection, so the write-ahead log is folded back."""
    import asyncio

    from acai_desktop.core.store import database

    started, release = threading.Event(), threading.Event()
    opened: list = []
    real_connect = database.connect

    def slow_connect(path):
        db = real_connect(path)
        db.execute("CREATE TABLE written_during_the_open (x)")  # leaves a WAL to fold
        opened.append(db)
        started.set()
        release.wait(30)
        return db

    monkeypatch.setattr(database, "connect", slow_connect)
    path = tmp_path / "acai.sqlite3"

    async def scenario():
        opening = asyncio.ensure_future(Store.open(path))
        await asyncio.to_thread(started.wait, 30)
        opening.cancel()
        await asyncio.sleep(0)  # the cancellation reaches the open's await
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await opening

    run(scenario())
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        opened[0].conn.execute("SELECT 1")
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
