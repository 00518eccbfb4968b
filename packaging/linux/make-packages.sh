#!/usr/bin/env bash
# Package a built bundle: a per-user tar.gz (with install.sh / uninstall.sh) and a .deb.
#
#   packaging/linux/make-packages.sh BUNDLE ICONS OUT VARIANT
#
# BUNDLE is dist/acai-desktop (PyInstaller's folder), ICONS the output of
# packaging/icons.py, OUT where the packages go, VARIANT "lean" or "local". Prints
# "package: PATH" for each file made.
#
# The .deb installs the bundle in /opt/acai-desktop, the launcher /usr/bin/acai-desktop
# (a relative symlink: it also works inside a `dpkg -x` tree), the menu entry in
# /usr/share/applications and the icons in the hicolor theme. It has no maintainer
# scripts: dpkg removes every file it installed, the bundle writes nothing into
# /opt, and the desktop and icon caches are refreshed by the dpkg triggers of
# desktop-file-utils and hicolor-icon-theme. User data (~/.local/share/acai-desktop)
# is never part of the package, so removing or purging it keeps conversations and memories.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 BUNDLE ICONS OUT VARIANT" >&2; exit 2; }
bundle=$(cd "$1" && pwd)
icons=$(cd "$2" && pwd)
out=$(cd "$3" && pwd)
variant=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
entry="$root/resources/acai-desktop.desktop"

version=$("$bundle/acai-desktop" --version | awk '{print $2}')
suffix=""
deb_version=$version
if [ "$variant" = local ]; then
    suffix="-local"
    deb_version="$version+local"
fi
desktop-file-validate "$entry"

work="$root/build/packages-$variant"
rm -rf "$work"
mkdir -p "$work"

# -- tar.gz: the bundle, the installer scripts, the menu entry and the icons.
stage="$work/tar/acai-desktop"
mkdir -p "$stage/share/applications" "$stage/share/icons"
cp -a "$bundle/." "$stage/"
cp "$here/install.sh" "$here/uninstall.sh" "$stage/"
cp "$entry" "$stage/share/applications/acai-desktop.desktop"
cp -R "$icons/hicolor" "$stage/share/icons/"
tarball="$out/acai-desktop$suffix-$version-linux-$(uname -m).tar.gz"
tar -C "$work/tar" -czf "$tarball" acai-desktop
echo "package: $tarball"

# -- .deb
command -v dpkg-deb >/dev/null || { echo "make-packages: dpkg-deb is missing" >&2; exit 1; }
arch=$(dpkg --print-architecture)
tree="$work/deb"
mkdir -p "$tree/DEBIAN" "$tree/opt" "$tree/usr/bin" "$tree/usr/share/applications" \
    "$tree/usr/share/icons" "$tree/usr/share/doc/acai-desktop"
cp -a "$bundle" "$tree/opt/acai-desktop"
ln -s ../../opt/acai-desktop/acai-desktop "$tree/usr/bin/acai-desktop"
install -m644 "$entry" "$tree/usr/share/applications/acai-desktop.desktop"
cp -R "$icons/hicolor" "$tree/usr/share/icons/"
cat >"$tree/usr/share/doc/acai-desktop/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: acai-desktop
Comment: A PyInstaller bundle: Python, Qt (LGPL-3.0, PySide6-Essentials) and the
 Python packages listed in /opt/acai-desktop/_internal/*.dist-info, each under its
 own licence.

Files: *
License: MIT
EOF

# Depends: the packages that hold the libraries the bundle links but does not carry
# (libc, OpenGL/EGL, ...), looked up on this build machine as dpkg-shlibdeps would.
# (PyInstaller carries the other system libraries: X11/xcb, fontconfig, glib, dbus.)
missing_sonames=$(find "$tree/opt/acai-desktop" -type f -name '*.so*' -o -type f -name acai-desktop |
    xargs -r readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
    while read -r soname; do
        [ -n "$(find "$tree/opt/acai-desktop" -name "$soname" -print -quit)" ] || echo "$soname"
    done)
package_of() { # the Debian package holding a file (dpkg may know it by either path)
    local found
    for candidate in "$1" "$(readlink -f "$1")"; do
        found=$(dpkg -S "$candidate" 2>/dev/null | head -n1 | cut -d: -f1) || true
        [ -n "$found" ] && { echo "$found"; return 0; }
    done
    return 1
}
depends=$(for soname in $missing_sonames; do
    path=$(ldconfig -p | awk -v s="$soname" '$1 == s {print $NF; exit}')
    if [ -z "$path" ] || ! package_of "$path"; then
        echo "make-packages: $soname is not on this machine (left out of Depends)" >&2
    fi
done | sort -u | paste -sd, - | sed 's/,/, /g')

find "$tree" -type d -exec chmod 755 {} +
installed_kb=$(du -sk --exclude=DEBIAN "$tree" | cut -f1)
cat >"$tree/DEBIAN/control" <<EOF
Package: acai-desktop
Version: $deb_version
Architecture: $arch
Maintainer: ACAI Desktop developers <acai-desktop@users.noreply.github.com>
Installed-Size: $installed_kb
Depends: $depends
Recommends: fontconfig-config, fonts-dejavu-core | fonts-liberation2, libwayland-cursor0
Suggests: gnome-keyring
Section: utils
Priority: optional
Homepage: https://github.com/acai-desktop/acai-desktop
Description: desktop chat assistant that remembers
 A Qt window for any OpenAI-compatible model (OpenAI, Ollama, LM Studio,
 llama.cpp) with an adaptive long-term memory in SQLite: facts, summaries and
 notes, retrieved by hybrid search, shown and editable in a side panel.
EOF
deb="$out/acai-desktop_${deb_version}_$arch.deb"
# gzip: 20 s here against 3 minutes for xz (80 MB instead of 100 MB); a release can
# set ACAI_DEB_COMPRESSION=xz.
dpkg-deb --root-owner-group -Z"${ACAI_DEB_COMPRESSION:-gzip}" --build "$tree" "$deb" >/dev/null
echo "package: $deb"
