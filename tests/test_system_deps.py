"""scripts/install-system-deps: the tests get Debian's PostgreSQL server (issue 27 item 5),
the installed app's Depends (--list-runtime) never do — the app is a client only."""

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-system-deps"


def listed(option: str) -> list[str]:
    result = subprocess.run([str(SCRIPT), option], capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_the_tests_get_the_postgresql_server():
    assert "postgresql" in listed("--list")


def test_the_app_depends_on_no_postgresql_package():
    assert not [name for name in listed("--list-runtime") if "postgres" in name or "libpq" in name]
