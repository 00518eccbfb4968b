"""Which of the files PyInstaller's Qt hooks collect the lean bundle keeps.

The hooks take every plugin of a type the used Qt modules name, and every translation
of those modules. The app runs as a desktop window on X11 or Wayland (and offscreen for
--self-test), shows PNG/SVG/JPEG/GIF images and has no translations of its own, so Qt's
(English) strings are the only ones it could show. Paths are the destination names
inside the bundle (``PySide6/Qt/plugins/<type>/<file>``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path, PurePosixPath

# Plugin types dropped whole: embedded-Linux input and EGL back ends, and the print and
# SQL support of modules the app does not import.
DROPPED_PLUGIN_TYPES = {
    "egldeviceintegrations",
    # The GTK 3 theme plugin pulls in cairo, pango, gdk-pixbuf and atk (about 5 MB); the
    # window draws with Fusion and its own palette, and the xdg-desktop-portal theme
    # still gives native file dialogs where a portal runs.
    "platformthemes/libqgtk3.so",
    # EGL/Vulkan buffer sharing on Wayland is for OpenGL surfaces; widgets paint into
    # shared memory, which the Wayland platform plugin does itself.
    "wayland-graphics-integration-client",
    "generic",
    "printsupport",
    "sqldrivers",
    "tls",
    "networkinformation",
    "designer",
    "qmltooling",
    "qmllint",
    "wayland-graphics-integration-server",
}
# Within the plugin types kept, the files kept (a file not listed is dropped).
KEPT_PLUGINS = {
    # X11, Wayland, and the offscreen/minimal ones the self-test and tests use.
    "platforms": {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqminimal.so"},
    "imageformats": {"libqsvg.so", "libqico.so", "libqjpeg.so", "libqgif.so"},
    # xdg-shell is the Wayland shell every current compositor speaks.
    "wayland-shell-integration": {"libxdg-shell.so"},
}


# The desktop's own libraries, taken from the system rather than from the build machine
# (the .deb depends on their packages; any desktop Linux has them): the X11 core and
# keyboard map, the font stack, GLib and the D-Bus client with what it links. A bundled
# fontconfig older than the system's configuration files warns about elements it does
# not know, and a bundled GLib or D-Bus talks to the system's services and modules with
# the build machine's version. Kept in the bundle: libxcb-cursor and the other xcb
# utility libraries Qt needs (often missing), and what Python and Qt were built against
# by ABI version (libffi, OpenSSL, SQLite, libstdc++, liblzma, libbz2, libuuid).
SYSTEM_LIBRARIES = (
    "libX11.so.",
    "libX11-xcb.so.",
    "libxkbcommon.so.",
    "libfontconfig.so.",
    "libfreetype.so.",
    "libpng16.so.",
    "libexpat.so.",
    "libbrotlicommon.so.",
    "libbrotlidec.so.",
    "libz.so.",
    "libglib-2.0.so.",
    "libgthread-2.0.so.",
    "libpcre2-8.so.",
    "libdbus-1.so.",
    "libsystemd.so.",
    "libgcrypt.so.",
    "libgpg-error.so.",
    "liblz4.so.",
    "libzstd.so.",
    "libcap.so.",
)


def _plugin_parts(name: str) -> tuple[str, str] | None:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if "plugins" not in parts:
        return None
    at = parts.index("plugins")
    if len(parts) < at + 3:  # not a file inside a plugin type's folder
        return None
    return parts[at + 1], parts[-1]


def keep_binary(name: str) -> bool:
    """False for a Qt plugin the app never loads or a library the system provides."""
    name = name.replace("\\", "/")
    if "/" not in name and name.startswith(SYSTEM_LIBRARIES):
        return not sys.platform.startswith("linux")
    if not name.startswith("PySide6/"):
        return True
    found = _plugin_parts(name)
    if found is None:
        return True
    plugin_type, file = found
    if plugin_type in DROPPED_PLUGIN_TYPES or f"{plugin_type}/{file}" in DROPPED_PLUGIN_TYPES:
        return False
    kept = KEPT_PLUGINS.get(plugin_type)
    return kept is None or file in kept


# pyqtgraph data the app never reads: its colour-map tables (read by colormap.get(), which
# the charts don't call) and its own application icon (set only when pyqtgraph creates the
# QApplication, and the app creates its own). 1.5 MB.
DROPPED_DATA = ("/pyqtgraph/colors/maps/", "/pyqtgraph/icons/peegee/")


def keep_data(name: str) -> bool:
    """False for Qt's translations (the app ships none, so Qt's own stay English) and for
    the pyqtgraph data in ``DROPPED_DATA``."""
    path = "/" + name.replace("\\", "/")
    return "/translations/" not in path and not any(part in path for part in DROPPED_DATA)


def _needed(path: str) -> list[str]:
    """The DT_NEEDED entries of an ELF file (readelf is part of binutils, which
    PyInstaller needs on Linux anyway)."""
    done = subprocess.run(
        ["readelf", "-d", path], capture_output=True, text=True, env={"LC_ALL": "C"}
    )
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", done.stdout)


def _is_dependency_only(dest: str) -> bool:
    """Shared libraries that are there only because something links them: the system
    libraries at the top of the bundle and Qt's own libraries. Everything else (Python
    extension modules, Qt plugins, libraries a package loads with ctypes) is loaded by
    name at run time and is kept."""
    dest = dest.replace("\\", "/")
    return ("/" not in dest and ".so" in dest) or dest.startswith("PySide6/Qt/lib/")


def prune_unlinked(binaries: list) -> list:
    """Drop the shared libraries no kept file links any more (Linux only).

    PyInstaller collected the dependencies of every plugin and library before the
    filters above ran, so dropping the GTK theme or QtNetwork would leave cairo or
    Kerberos behind; this keeps a dependency only if a kept file needs it, transitively.
    """
    if not sys.platform.startswith("linux"):
        return binaries
    by_name: dict[str, list] = {}
    for entry in binaries:
        by_name.setdefault(PurePosixPath(entry[0]).name, []).append(entry)
    kept_names: set[str] = set()
    pending = [entry for entry in binaries if not _is_dependency_only(entry[0])]
    pending += [entry for entry in binaries if PurePosixPath(entry[0]).name.startswith("libpython")]
    seen: set[str] = set()
    while pending:
        entry = pending.pop()
        if entry[1] in seen:
            continue
        seen.add(entry[1])
        kept_names.add(PurePosixPath(entry[0]).name)
        source = Path(entry[1])
        if source.is_file():
            for name in _needed(str(source.resolve())):
                pending.extend(by_name.get(name, []))
    return [
        entry
        for entry in binaries
        if not _is_dependency_only(entry[0]) or PurePosixPath(entry[0]).name in kept_names
    ]


def strip_symbols(folder: Path) -> int:
    """``strip --strip-unneeded`` every shared library of the bundle: DWARF debug
    sections (libpython alone carries 17 MB) and the symbol tables no loader reads;
    the dynamic symbols stay, so linking and Python's imports work as before. Libraries
    an auditwheel repair rewrote with patchelf (``numpy.libs/`` and the like) are left
    as they are: strip can break such files. Returns the bytes saved (Linux only)."""
    if not sys.platform.startswith("linux"):
        return 0
    saved = 0
    for path in sorted(folder.rglob("*.so*")):
        if path.is_symlink() or not path.is_file():
            continue
        if any(part.endswith(".libs") for part in path.relative_to(folder).parts):
            continue
        before = path.stat().st_size
        subprocess.run(["strip", "--strip-unneeded", str(path)], check=True)
        saved += before - path.stat().st_size
    return saved


def drop_dangling_symlinks(entries: list, binaries: list) -> list:
    """PyInstaller links top-level names to Qt's libraries (``SYMLINK`` entries); drop
    the links whose library the filters above removed."""
    kept = {PurePosixPath(entry[0]).as_posix() for entry in binaries}
    return [
        entry
        for entry in entries
        if len(entry) < 3 or entry[2] != "SYMLINK" or PurePosixPath(entry[1]).as_posix() in kept
    ]
