"""The .deb: its metadata, then installed into a temporary root and run.

``dpkg -x`` unpacks it as an install would place it; ``dpkg --root`` installs and
purges it with a dpkg database of its own, which proves the removal is clean and that
the user's data stays. Neither touches the real system.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from acai_desktop import __version__
from tests.packaging.conftest import assert_valid_desktop_entry, installed_files

pytestmark = pytest.mark.e2e
SIZES = ("16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256")


def dpkg(*args: str) -> str:
    done = subprocess.run(["dpkg", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"dpkg {' '.join(args)}: {done.stderr}"
    return done.stdout


def control_fields(deb: Path) -> dict[str, str]:
    fields = {}
    for line in subprocess.run(
        ["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, check=True
    ).stdout.splitlines():
        if ":" in line and not line.startswith(" "):
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def test_control_names_the_package_version_and_system_libraries(deb_file):
    fields = control_fields(deb_file)
    assert fields["Package"] == "acai-desktop"
    assert fields["Version"] == __version__
    depends = {name.strip() for name in fields["Depends"].split(",")}
    # The libraries the bundle links but does not carry: libc, OpenGL/EGL and the
    # desktop's own (fonts, X11, GLib, D-Bus).
    assert {"libc6", "libgl1", "libegl1", "libfontconfig1", "libx11-6", "libdbus-1-3"} <= depends
    assert int(fields["Installed-Size"]) > 50_000  # KiB: the whole bundle is in it


def test_no_maintainer_scripts_are_needed(deb_file):
    listing = subprocess.run(
        ["dpkg-deb", "--info", str(deb_file)], capture_output=True, text=True, check=True
    ).stdout
    scripts = {"preinst", "postinst", "prerm", "postrm"} & set(listing.split())
    assert not scripts, f"unexpected maintainer scripts {scripts}: the triggers do their work"


def test_unpacked_launcher_runs_and_the_menu_entry_is_valid(deb_file, tmp_path):
    root = tmp_path / "root"
    dpkg("-x", str(deb_file), str(root))
    launcher = root / "usr/bin/acai-desktop"
    assert launcher.is_symlink()
    assert os.readlink(launcher) == "../../opt/acai-desktop/acai-desktop"
    done = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"acai-desktop {__version__}"

    entry = root / "usr/share/applications/acai-desktop.desktop"
    assert_valid_desktop_entry(entry)
    assert "\nExec=acai-desktop\n" in entry.read_text(encoding="utf-8")
    icons = root / "usr/share/icons/hicolor"
    for size in SIZES:
        assert (icons / size / "apps/acai-desktop.png").is_file(), size
    assert (icons / "scalable/apps/acai-desktop.svg").is_file()


def test_installed_app_passes_its_self_test(deb_file, tmp_path):
    root = tmp_path / "root"
    dpkg("-x", str(deb_file), str(root))
    done = subprocess.run(
        [str(root / "usr/bin/acai-desktop"), "--data-dir", str(tmp_path / "profile"),
         "--self-test", "--json"],
        capture_output=True, text=True, timeout=270,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and len(report["checks"]) >= 10


def test_install_then_purge_leaves_only_the_users_data(deb_file, tmp_path):
    root = tmp_path / "root"
    admin = root / "var/lib/dpkg"
    for folder in ("info", "updates", "triggers"):
        (admin / folder).mkdir(parents=True)
    for file in ("status", "available"):
        (admin / file).touch()
    data = root / "home/user/.local/share/acai-desktop/acai.sqlite3"
    data.parent.mkdir(parents=True)
    data.write_bytes(b"the user's conversations")
    before = installed_files(root)
    # The temporary root has no libc6 package registered: only the dependencies are forced.
    dpkg(f"--root={root}", "--force-not-root", "--force-depends", "-i", str(deb_file))
    status = subprocess.run(
        ["dpkg-query", f"--admindir={admin}", "-W", "-f=${Status}", "acai-desktop"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert status.stdout == "install ok installed", status.stderr
    launcher = root / "usr/bin/acai-desktop"
    done = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == f"acai-desktop {__version__}", done.stderr

    dpkg(f"--root={root}", "--force-not-root", "--force-depends", "--purge", "acai-desktop")
    left = {f for f in installed_files(root) - before if not f.startswith("var/lib/dpkg/")}
    assert left == set(), f"left behind after purge: {sorted(left)[:10]}"
    assert not (root / "opt/acai-desktop").exists()
    assert data.read_bytes() == b"the user's conversations"
