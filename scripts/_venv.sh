# shellcheck shell=bash
# Sourced by scripts/run-app and scripts/test: make sure the project's virtual
# environment exists and has the project installed (editable) with the given extras.
#
#   ensure_venv "dev,local"
#
# The install runs only when pyproject.toml or the extras changed since the last one
# (a stamp file inside the venv remembers), so a second start costs nothing.
# Honours $PYTHON (interpreter to build the venv with) and $ACAI_VENV (venv path).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${ACAI_VENV:-$ROOT/.venv}

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "acai-desktop: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2
    return 1
}

create_venv() {
    local python
    python=$(find_python)
    echo "Creating the virtual environment in $VENV (with $python)"
    if ! "$python" -m venv "$VENV" 2>/dev/null; then
        # Debian's own python3 ships ensurepip separately (python3-venv).
        rm -rf "$VENV"
        "$ROOT/scripts/install-system-deps" --venv
        "$python" -m venv "$VENV"
    fi
}

ensure_venv() {
    local extras=$1 stamp wanted
    if [ ! -x "$VENV/bin/python" ]; then
        create_venv
    fi
    stamp="$VENV/.acai-desktop-install-stamp"
    wanted="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1) [$extras]"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
        return 0
    fi
    echo "Installing acai-desktop[$extras] into $VENV" \
        "(the first time, llama-cpp-python compiles from source: about 5 minutes)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --progress-bar off -e "$ROOT[$extras]"
    echo "$wanted" >"$stamp"
}
