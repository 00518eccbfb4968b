#!/bin/sh
# Remove a per-user install of ACAI Desktop made by install.sh: the app folder, the
# launcher, the menu entry and the icons, and the folders that held only those.
# Conversations and memories in the user's data directory are kept.
#
#   ~/.local/lib/acai-desktop/uninstall.sh        (the installed copy knows its PREFIX)
#   ./uninstall.sh [--prefix DIR]                 (from the archive; default ~/.local)
set -eu

quiet=""
PREFIX_GIVEN=${PREFIX:-}
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "usage: $0 [--prefix DIR] [--quiet]" >&2; exit 2; }
            PREFIX_GIVEN=$2; shift 2 ;;
        --prefix=*) PREFIX_GIVEN=${1#--prefix=}; shift ;;
        --quiet) quiet=1; shift ;;
        *) echo "usage: $0 [--prefix DIR] [--quiet]" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/.installed-files" ]; then
    app=$here # the installed copy: PREFIX/lib/acai-desktop
    PREFIX=$(dirname "$(dirname "$app")")
else
    PREFIX=${PREFIX_GIVEN:-$HOME/.local}
    case "$PREFIX" in /*) ;; *) PREFIX="$(pwd)/$PREFIX" ;; esac
    app="$PREFIX/lib/acai-desktop"
fi
manifest="$app/.installed-files"
if [ ! -f "$manifest" ]; then
    echo "uninstall.sh: no install of ACAI Desktop in $PREFIX ($manifest is missing)" >&2
    exit 1
fi

# Only what install.sh recorded, each a path under PREFIX; then the folders it leaves
# empty, up to (not including) PREFIX itself.
while IFS= read -r file; do
    case "$file" in "$PREFIX"/*) ;; *) continue ;; esac
    rm -f "$file"
    dir=$(dirname "$file")
    while [ "$dir" != "$PREFIX" ] && rmdir "$dir" 2>/dev/null; do
        dir=$(dirname "$dir")
    done
done <"$manifest"
rm -rf "$app"
rmdir "$PREFIX/lib" 2>/dev/null || true

if [ -z "$quiet" ]; then
    echo "Removed ACAI Desktop from $PREFIX."
    echo "Your conversations and memories are kept in your data directory" \
        "(\${XDG_DATA_HOME:-~/.local/share}/acai-desktop); delete it to remove them too."
fi
