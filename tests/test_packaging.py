"""What the wheel and the frozen bundle ship: every package, every resource."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

from acai_desktop.core.resources import resource_path, resource_text

REPO = Path(__file__).resolve().parents[1]


def listed_packages() -> set[str]:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(pyproject["tool"]["setuptools"]["packages"])


def package_dirs(top: Path, name: str, *, needs_init: bool) -> set[str]:
    """Dotted names of ``top`` and every directory under it holding files."""
    found = set()
    for directory in [top, *sorted(p for p in top.rglob("*") if p.is_dir())]:
        if "__pycache__" in directory.parts:
            continue
        files = [p for p in directory.iterdir() if p.is_file()]
        if needs_init and not any(p.suffix == ".py" for p in files):
            continue
        if not files:
            continue
        relative = directory.relative_to(top).parts
        found.add(".".join([name, *relative]))
    return found


def test_every_code_package_is_listed():
    expected = package_dirs(REPO / "acai_desktop", "acai_desktop", needs_init=True)
    assert "acai_desktop.core" in expected  # the walk found the tree
    missing = expected - listed_packages()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_every_resource_directory_is_listed():
    expected = package_dirs(REPO / "resources", "acai_desktop.resources", needs_init=False)
    assert "acai_desktop.resources.themes" in expected
    missing = expected - listed_packages()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_no_listed_package_is_stale():
    for package in listed_packages():
        parts = package.split(".")
        if parts[:2] == ["acai_desktop", "resources"]:
            directory = REPO.joinpath("resources", *parts[2:])
        else:
            directory = REPO.joinpath(*parts)
        assert directory.is_dir(), f"{package} is listed but {directory} does not exist"


def test_the_wheel_ships_only_the_product():
    """The lab (acai_lab/: the scripted model, the self-test's checks), the benchmarks and
    the tests stay in the repository; only the frozen bundle adds the lab."""
    outside = ("acai_lab", "benchmarks", "tests")
    assert not [p for p in listed_packages() if p.split(".")[0] in outside]


def test_resources_are_reachable_through_the_package():
    assert "QMainWindow" in resource_text("themes", "app.qss")
    for icon in ("acai-desktop.svg", "acai-desktop.png"):
        path = resource_path("icons", icon)
        assert path.is_file() and path.stat().st_size > 0, path


def test_desktop_entry_starts_the_program():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # desktop-entry keys are case-sensitive
    entry.read_string(resource_text("acai-desktop.desktop"))
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"].split()[0] == "acai-desktop"
    assert section["Icon"] == "acai-desktop"
    assert resource_path("icons", f"{section['Icon']}.svg").is_file()
