#!/usr/bin/env bash
# Build the one-folder bundle dist/acai-desktop/ with PyInstaller, then smoke-test it.
#
#   packaging/build.sh                 the app, WordLlama embedder included
#   packaging/build.sh --local-model   also llama-cpp-python and the SmolLM2 GGUF model
#
# Uses the project's venv (created if missing) with the "build" extra, plus "local"
# when --local-model is given. Output: dist/acai-desktop/ and
# dist/acai-desktop-<version>-linux-x86_64.tar.gz.
set -euo pipefail
# shellcheck source=scripts/_venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/_venv.sh"
cd "$ROOT"

extras="build"
export ACAI_BUNDLE_LOCAL_MODEL=0
for arg in "$@"; do
    case "$arg" in
        --local-model) extras="build,local"; ACAI_BUNDLE_LOCAL_MODEL=1 ;;
        *) echo "usage: $0 [--local-model]" >&2; exit 2 ;;
    esac
done

"$ROOT/scripts/install-system-deps" --all
ensure_venv "$extras"

"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
    packaging/acai-desktop.spec

bundle="$ROOT/dist/acai-desktop"
desktop_entry="$bundle/_internal/acai_desktop/resources/acai-desktop.desktop"
test -f "$desktop_entry" || { echo "build: resources missing from the bundle" >&2; exit 1; }

echo "== smoke test of the bundle"
smoke_dir=$(mktemp -d)
trap 'rm -rf "$smoke_dir"' EXIT
"$bundle/acai-desktop" --version
QT_QPA_PLATFORM=offscreen ACAI_DESKTOP_QUIT_AFTER_MS=1500 \
    "$bundle/acai-desktop" --data-dir "$smoke_dir/profile"
test -f "$smoke_dir/profile/acai.sqlite3" || { echo "build: the GUI did not start" >&2; exit 1; }
if "$bundle/acai-desktop" --help | grep -q "memories"; then
    # Stores a memory, which embeds it with the bundled WordLlama files.
    "$bundle/acai-desktop" --data-dir "$smoke_dir/profile" memories add \
        "The bundle embeds offline." --json >/dev/null
fi

version=$("$bundle/acai-desktop" --version | awk '{print $2}')
archive="$ROOT/dist/acai-desktop-$version-linux-$(uname -m).tar.gz"
tar -C "$ROOT/dist" -czf "$archive" acai-desktop
echo "built $bundle ($(du -sh "$bundle" | cut -f1)) and $archive"
