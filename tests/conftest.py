"""Suite-wide set-up. Runs before any test module, so before Qt loads."""

import os
import tempfile
from pathlib import Path

import pytest

# Qt must never need a display: CI has none, and a developer's desktop should not
# flash windows. QT_QPA_PLATFORM is read when the QApplication is created.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

# Without XDG_RUNTIME_DIR (CI as root, containers) Qt logs a warning on start-up,
# and a Qt warning fails a test; give it a private directory instead.
if not os.environ.get("XDG_RUNTIME_DIR"):
    runtime_dir = tempfile.mkdtemp(prefix="acai-xdg-runtime-")
    os.chmod(runtime_dir, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = runtime_dir


# Each folder's tests carry its marker, so a fast loop can leave the slow ones out:
#   scripts/test -m "not gui and not e2e and not local_model"
# (``local_model`` is set by hand on the tests that start the real model server.)
_TESTS = Path(__file__).parent
_FOLDER_MARKERS = {"ui": "gui", "e2e": "e2e"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            folders = item.path.relative_to(_TESTS).parts[:-1]
        except ValueError:  # collected from outside tests/ (not part of the suite)
            continue
        # Any level: tests/benchmarks/e2e/ runs programs as tests/e2e/ does.
        for folder in folders:
            marker = _FOLDER_MARKERS.get(folder)
            if marker is not None:
                item.add_marker(marker)


# A throwaway PostgreSQL cluster (tests/support/postgres_cluster.py): one per test
# session (per xdist worker), started only when a test asks for it, removed at the end.
# Without PostgreSQL's server binaries or psycopg the tests that need it FAIL, naming
# the fix: the store suite runs over both stores or it has not run.
@pytest.fixture(scope="session")
def postgres_cluster():
    from tests.support.postgres_cluster import PostgresCluster, PostgresUnavailable

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail(
            "psycopg is not installed (a dependency of the app since issue 27); "
            "reinstall it (pip install -e '.[dev]') or run scripts/test",
            pytrace=False,
        )
    try:
        cluster = PostgresCluster()
    except PostgresUnavailable as missing:
        pytest.fail(str(missing), pytrace=False)
    with cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres_cluster):
    """A fresh, empty database on the session's cluster (dropped after the test)."""
    url = postgres_cluster.create_database()
    yield url
    postgres_cluster.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request, tmp_path):
    """Where a store suite test opens its store (``open_store``): a SQLite file in a
    temp dir, then a fresh database on the throwaway PostgreSQL cluster. The suite's
    tests that take it run over both stores (docs/architecture.md, "Two stores")."""
    if request.param == "sqlite":
        return tmp_path / "acai.sqlite3"
    return request.getfixturevalue("postgres_url")
