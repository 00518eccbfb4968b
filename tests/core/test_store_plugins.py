"""The profile's connections run no sqlite-utils plugin: another package's hook has no
business on them, and looking for plugins scanned every installed package's metadata
on each start of the window (issue 22, start-up measured from outside)."""

from __future__ import annotations

from sqlite_utils import hookimpl
from sqlite_utils.plugins import pm

from acai_desktop.core.store.database import Store
from tests.support.aio import run


class RecordingPlugin:
    def __init__(self) -> None:
        self.connections = []

    @hookimpl
    def prepare_connection(self, conn):
        self.connections.append(conn)


def test_opening_a_profile_s_database_runs_no_sqlite_utils_plugin(tmp_path):
    plugin = RecordingPlugin()
    pm.register(plugin, name="recording-test-plugin")
    try:

        async def scenario():
            store = await Store.open(tmp_path / "acai.sqlite3")
            try:
                await store.read(lambda db: db.execute("SELECT 1").fetchall())  # the reader
                await store.run(lambda db: db.execute("SELECT 1").fetchall())
            finally:
                await store.close()

        run(scenario())
    finally:
        pm.unregister(name="recording-test-plugin")
    assert plugin.connections == []
