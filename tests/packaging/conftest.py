"""The built installer artefacts the packaging tests install and run.

They test what ``packaging/build.sh`` made in ``dist/``; ``scripts/test`` (with no
arguments, as CI runs it) builds them first. A missing artefact fails the test with
the command that makes it, never skips it: a skipped installer test would hide a
missing installer.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from acai_desktop import __version__

REPO = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("ACAI_DIST_DIR", REPO / "dist"))


def built(path: Path, command: str) -> Path:
    if not path.exists():
        pytest.fail(
            f"{path} is missing: build it with `{command}` (`scripts/test` with no "
            "arguments builds it before the tests)",
            pytrace=False,
        )
    return path


def bundle_version(program: Path) -> str:
    done = subprocess.run([str(program), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[-1]


@pytest.fixture(scope="session")
def lean_bundle() -> Path:
    bundle = built(DIST / "acai-desktop", "packaging/build.sh")
    found = bundle_version(bundle / "acai-desktop")
    assert found == __version__, f"dist/ holds version {found}, the code {__version__}: rebuild"
    return bundle


@pytest.fixture(scope="session")
def local_bundle() -> Path:
    return built(DIST / "acai-desktop-local", "packaging/build.sh --local-model")


@pytest.fixture(scope="session")
def deb_file(lean_bundle) -> Path:
    arch = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return built(DIST / f"acai-desktop_{__version__}_{arch}.deb", "packaging/build.sh")


@pytest.fixture(scope="session")
def tarball(lean_bundle) -> Path:
    machine = os.uname().machine
    return built(DIST / f"acai-desktop-{__version__}-linux-{machine}.tar.gz", "packaging/build.sh")


def installed_files(root: Path) -> set[str]:
    """Every file and symlink under ``root``, relative to it."""
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() or path.is_symlink()
    }


def assert_valid_desktop_entry(entry: Path) -> None:
    """desktop-file-validate (desktop-file-utils, from scripts/install-system-deps)
    finds neither an error nor a hint."""
    done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
