"""The suite's own settings agree with each other."""

import tomllib
from pathlib import Path

from tests.support.timeouts import PROGRAM_TIMEOUT_S

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_a_subprocess_wait_ends_before_pytest_stops_the_test():
    options = tomllib.loads(PYPROJECT.read_text())["tool"]["pytest"]["ini_options"]
    assert options["timeout"] > PROGRAM_TIMEOUT_S


def test_each_folder_marks_its_tests(request):
    """The fast loop's -m expression relies on these markers."""
    markers = {"ui": "gui", "e2e": "e2e"}
    for item in request.session.items:
        folder = item.path.relative_to(PYPROJECT.parent / "tests").parts[0]
        if folder in markers:
            assert item.get_closest_marker(markers[folder]), item.nodeid
