#!/usr/bin/env bash
# Build the lean one-folder bundle with PyInstaller, prove it works, measure it, and
# package it as a .deb and a per-user tar.gz.
#
#   packaging/build.sh                 the app with its offline WordLlama embedder
#   packaging/build.sh --local-model   also llama-cpp-python and the SmolLM2 GGUF model
#   packaging/build.sh --no-install    use the venv as it is (fails if PyInstaller is missing)
#
# Uses the project's venv ($ACAI_VENV or .venv, created if missing) with the "build"
# extra, plus "local" for --local-model. Steps, each timed: icons; the app bundle; the
# floor (an empty PySide6 window, same PyInstaller, same run; lean only); --version and the frozen
# --self-test offscreen on an empty profile; start-up as whole processes (the frozen app
# opening and quitting against the frozen floor, timed by `python -m benchmarks bench
# startup` from outside); sizes; the tar.gz and the .deb. Output in dist/:
#
#   acai-desktop/                                    the bundle (acai-desktop-local/)
#   acai-desktop-<version>-linux-<arch>.tar.gz       with install.sh / uninstall.sh
#   acai-desktop_<version>_<debian arch>.deb         (…+local… for --local-model)
#   build-report-<variant>.txt                       the figures printed at the end
set -euo pipefail
# shellcheck source=scripts/_venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/_venv.sh"
cd "$ROOT"

extras="build"
variant="lean"
install_venv=1
export ACAI_BUNDLE_LOCAL_MODEL=0 ACAI_BUNDLE_NAME=acai-desktop
for arg in "$@"; do
    case "$arg" in
        --local-model)
            extras="build,local"
            variant="local"
            ACAI_BUNDLE_LOCAL_MODEL=1
            ACAI_BUNDLE_NAME=acai-desktop-local
            ;;
        --no-install) install_venv=0 ;;
        *) echo "usage: $0 [--local-model] [--no-install]" >&2; exit 2 ;;
    esac
done

if [ "$install_venv" -eq 1 ]; then
    "$ROOT/scripts/install-system-deps" --all
    ensure_venv "$extras"
fi
[ -x "$VENV/bin/pyinstaller" ] || {
    echo "build: no PyInstaller in $VENV (install the \"build\" extra)" >&2
    exit 1
}
# This checkout's code, even when the venv's editable install points at another one.
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

bundle="$ROOT/dist/$ACAI_BUNDLE_NAME"
report="$ROOT/dist/build-report-$variant.txt"
mkdir -p "$ROOT/dist" "$ROOT/build"
: >"$report"
say() { echo "$*" | tee -a "$report"; }
seconds_since() { echo $(($(date +%s) - $1)); }

echo "== icons"
"$VENV/bin/python" packaging/icons.py "$ROOT/build/icons"

echo "== PyInstaller: the $variant bundle"
started=$(date +%s)
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller-$variant" \
    packaging/acai-desktop.spec
app_build_s=$(seconds_since "$started")

floor_build_s=0
if [ "$variant" = lean ]; then # the size goal is the lean bundle's
    echo "== PyInstaller: the floor (an empty PySide6 window)"
    started=$(date +%s)
    "$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
        --distpath "$ROOT/dist/floor" --workpath "$ROOT/build/floor" \
        packaging/floor/empty-window.spec
    floor_build_s=$(seconds_since "$started")
fi

echo "== the frozen app: --version and --self-test (offscreen, empty profile)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
version=$("$bundle/acai-desktop" --version | awk '{print $2}')
[ -n "$version" ] || { echo "build: the bundle does not print its version" >&2; exit 1; }
started=$(date +%s)
QT_QPA_PLATFORM=offscreen "$bundle/acai-desktop" --data-dir "$scratch/profile" --self-test
self_test_s=$(seconds_since "$started")

echo "== the frozen app: open and quit as whole processes (bench startup --app, 5 runs)"
# The benchmarks are not in the bundle: the checkout's benchmarks/ times it from outside,
# against the floor bundle doing the same (lean builds it; else a bare window in the venv).
floor="$ROOT/dist/floor/empty-window/empty-window"
bare=()
[ -x "$floor" ] && bare=(--bare "$floor --quit-after-ms 1")
startup=$(QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m benchmarks bench startup \
    --app "$bundle/acai-desktop" "${bare[@]}" --outer-runs 5)

echo "== packages"
started=$(date +%s)
packages=$("$ROOT/packaging/linux/make-packages.sh" "$bundle" "$ROOT/build/icons" "$ROOT/dist" "$variant")
packages_s=$(seconds_since "$started")

app_kb=$(du -sk "$bundle" | cut -f1)
mib() { awk -v k="$1" 'BEGIN {printf "%.1f MiB", k / 1024}'; }
say "ACAI Desktop $version, $variant bundle, built $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores"
say "size: $(mib "$app_kb") ($bundle)"
if [ "$variant" = lean ]; then
    floor_kb=$(du -sk "$ROOT/dist/floor/empty-window" | cut -f1)
    say "floor: $(mib "$floor_kb") (an empty PySide6-Essentials window, same PyInstaller run)"
    say "ratio: $(awk -v a="$app_kb" -v f="$floor_kb" 'BEGIN {printf "%.3f", a / f}')x the floor" \
        "(goal: <= 1.3x)"
fi
say "biggest parts:"
# awk keeps the first 12 itself: `head` would leave before sort has written everything,
# and with pipefail sort's SIGPIPE (exit 141) failed the build now and then.
du -sm "$bundle"/_internal/* "$bundle"/acai-desktop | sort -rn |
    awk -v root="$bundle/" 'NR <= 12 {sub(root, "", $2); printf "  %5d MB  %s\n", $1, $2}' |
    tee -a "$report"
for package in $(echo "$packages" | sed -n 's/^package: //p'); do
    say "package: $(du -m "$package" | cut -f1) MB  $package"
done
floor_time=""
[ "$variant" = lean ] && floor_time="floor ${floor_build_s} s, "
say "times: app bundle ${app_build_s} s, ${floor_time}frozen self-test ${self_test_s} s," \
    "packages ${packages_s} s"
say "start-up of the frozen app (offscreen, fresh profile, open and quit):"
echo "$startup" | sed 's/^/  /' | tee -a "$report"
