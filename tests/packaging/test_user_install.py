"""The tar.gz installed for one user with its install.sh, then uninstalled.

HOME and PREFIX point into a temporary directory, so nothing reaches the real home.
"""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from acai_desktop import __version__
from tests.packaging.conftest import assert_valid_desktop_entry, installed_files

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def unpacked(tarball, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("archive")
    with tarfile.open(tarball) as archive:
        archive.extractall(folder, filter="tar")
    return folder / "acai-desktop"


def script(path: Path, *args: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(path), *args],
        capture_output=True,
        text=True,
        timeout=270,
        env={**os.environ, "HOME": str(home), **env},
    )


def test_install_run_and_uninstall_into_a_prefix(unpacked, tmp_path):
    home, prefix = tmp_path / "home", tmp_path / "prefix with space"
    data = home / ".local/share/acai-desktop/acai.sqlite3"
    data.parent.mkdir(parents=True)
    data.write_bytes(b"the user's conversations")

    done = script(unpacked / "install.sh", home=home, PREFIX=str(prefix))
    assert done.returncode == 0, done.stderr
    app = prefix / "lib/acai-desktop"
    launcher = prefix / "bin/acai-desktop"
    entry = prefix / "share/applications/acai-desktop.desktop"
    assert (app / "acai-desktop").is_file() and (app / "uninstall.sh").is_file()
    assert launcher.is_symlink() and launcher.resolve() == (app / "acai-desktop").resolve()
    for icon in ("48x48/apps/acai-desktop.png", "256x256/apps/acai-desktop.png",
                 "scalable/apps/acai-desktop.svg"):  # fmt: skip
        assert (prefix / "share/icons/hicolor" / icon).is_file(), icon

    assert_valid_desktop_entry(entry)
    # The menu starts the launcher by its full path: ~/.local/bin is often not on the
    # PATH a desktop session gives its menu.
    assert f'\nExec="{launcher}"\n' in entry.read_text(encoding="utf-8")

    ran = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == f"acai-desktop {__version__}", ran.stderr

    removed = script(app / "uninstall.sh", home=home)
    assert removed.returncode == 0, removed.stderr
    assert "kept" in removed.stdout
    assert installed_files(prefix) == set()
    assert [p for p in prefix.rglob("*")] == [], "empty folders left in the prefix"
    assert data.read_bytes() == b"the user's conversations"


def test_installing_again_replaces_the_app_and_default_prefix_is_home(unpacked, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    first = script(unpacked / "install.sh", home=home)
    assert first.returncode == 0, first.stderr
    files = installed_files(home / ".local")
    assert "bin/acai-desktop" in files and "share/applications/acai-desktop.desktop" in files

    again = script(unpacked / "install.sh", home=home)
    assert again.returncode == 0, again.stderr
    assert "Replacing the installed copy" in again.stdout
    assert installed_files(home / ".local") == files

    # From the archive, with the prefix named: the same clean removal.
    removed = script(unpacked / "uninstall.sh", "--prefix", str(home / ".local"), home=home)
    assert removed.returncode == 0, removed.stderr
    assert installed_files(home) == set()


def test_uninstall_refuses_a_prefix_without_an_install(unpacked, tmp_path):
    other = tmp_path / "other"
    (other / "lib/acai-desktop").mkdir(parents=True)
    (other / "lib/acai-desktop/precious").write_text("not ours")
    done = script(unpacked / "uninstall.sh", "--prefix", str(other), home=tmp_path)
    assert done.returncode == 1 and "no install of ACAI Desktop" in done.stderr
    assert (other / "lib/acai-desktop/precious").read_text() == "not ours"
