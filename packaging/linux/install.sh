#!/bin/sh
# Install ACAI Desktop for this user only (no root): the app in PREFIX/lib/acai-desktop,
# the launcher PREFIX/bin/acai-desktop, the menu entry and the icons under PREFIX/share.
#
#   ./install.sh                      PREFIX is ~/.local
#   ./install.sh --prefix DIR         or PREFIX=DIR ./install.sh
#
# Run it from the unpacked archive. Installing again replaces the app (an update).
# Conversations and memories live in the user's data directory (~/.local/share/
# acai-desktop), never in PREFIX/lib: installing, updating and uninstalling keep them.
set -eu

usage() {
    echo "usage: $0 [--prefix DIR]   (default: \$PREFIX or ~/.local)" >&2
    exit 2
}

PREFIX=${PREFIX:-$HOME/.local}
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || usage; PREFIX=$2; shift 2 ;;
        --prefix=*) PREFIX=${1#--prefix=}; shift ;;
        -h | --help) usage ;;
        *) usage ;;
    esac
done

die() {
    echo "install.sh: $*" >&2
    exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/acai-desktop" ] && [ -d "$here/_internal" ] ||
    die "run me from the unpacked archive (no acai-desktop program next to me in $here)"
case "$PREFIX" in /*) ;; *) PREFIX="$(pwd)/$PREFIX" ;; esac
# The menu entry names the launcher by its full path; a desktop entry's Exec would need
# these characters escaped, so such a prefix is refused rather than half-working.
case "$PREFIX" in *[\"\`\$\\%]*) die "PREFIX must not contain \" \` \$ \\ or %: $PREFIX" ;; esac

app="$PREFIX/lib/acai-desktop"
[ "$here" != "$app" ] || die "this copy is the installed one ($app); run install.sh from the archive"
if [ -e "$app" ]; then
    [ -f "$app/.installed-files" ] || die "$app exists but was not installed by install.sh; remove it first"
    echo "Replacing the installed copy in $app"
    "$app/uninstall.sh" --quiet
fi

mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications"
# Copied next to the target, then renamed: a failed copy leaves no half-installed app.
staging="$PREFIX/lib/.acai-desktop.installing.$$"
trap 'rm -rf "$staging"' EXIT
cp -R "$here" "$staging"
mv "$staging" "$app"
trap - EXIT

manifest="$app/.installed-files"
: >"$manifest"
place() { # place SOURCE TARGET: copy a file outside the app folder and remember it
    mkdir -p "$(dirname "$2")"
    cp "$1" "$2"
    echo "$2" >>"$manifest"
}

ln -sfn "../lib/acai-desktop/acai-desktop" "$PREFIX/bin/acai-desktop"
echo "$PREFIX/bin/acai-desktop" >>"$manifest"

for icon in "$app"/share/icons/hicolor/*/apps/acai-desktop.*; do
    place "$icon" "$PREFIX/share/icons/hicolor/${icon#"$app"/share/icons/hicolor/}"
done

entry="$PREFIX/share/applications/acai-desktop.desktop"
sed -e "s|^Exec=acai-desktop|Exec=\"$PREFIX/bin/acai-desktop\"|" \
    -e "s|^TryExec=.*|TryExec=$PREFIX/bin/acai-desktop|" \
    "$app/share/applications/acai-desktop.desktop" >"$app/share/applications/.entry"
place "$app/share/applications/.entry" "$entry"
rm -f "$app/share/applications/.entry"

# Menus notice a new entry by themselves (the entry declares no MIME type, so there is
# no MIME cache to update); an icon cache, where one exists, would hide the new icons.
if [ -f "$PREFIX/share/icons/hicolor/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t "$PREFIX/share/icons/hicolor" 2>/dev/null || true
fi

echo "Installed ACAI Desktop $("$app/acai-desktop" --version 2>/dev/null | cut -d' ' -f2) in $app"
echo "  launcher:   $PREFIX/bin/acai-desktop"
echo "  menu entry: $entry"
echo "  uninstall:  $app/uninstall.sh"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "  ($PREFIX/bin is not on your PATH: the menu entry works anyway)" ;; esac
