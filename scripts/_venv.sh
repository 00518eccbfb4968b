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

# llama-cpp-python compiles llama.cpp on install, by default for this very CPU
# (-march=native). That build dies with SIGILL wherever the CPU advertises an instruction
# set the OS or hypervisor doesn't enable (AMX tiles in a VM, seen here) and in a bundle
# moved to an older CPU, so it is built for the portable x86-64/AVX2 baseline instead.
# pip caches built wheels by source URL only, not by build flags, so pip's cache could hand
# back a native wheel: the portable wheel is built without it, once, into a cache of our
# own keyed by the build flavour, and every later venv (a fresh clone, CI with a warm
# cache) installs that wheel instead of compiling for five minutes again.
LLAMA_CPP_BUILD="portable-1"
WHEEL_CACHE=${ACAI_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acai-desktop/wheels/$LLAMA_CPP_BUILD}

install_portable_llama_cpp() {
    local marker="$VENV/.acai-llama-cpp-build" requirement wanted cache wheel
    [ "$(cat "$marker" 2>/dev/null)" = "$LLAMA_CPP_BUILD" ] && return 0
    requirement=$("$VENV/bin/python" -c '
import sys, tomllib
extras = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]["local"]
print(next(r for r in extras if r.startswith("llama-cpp-python")))' "$ROOT/pyproject.toml")
    wanted=$(echo "$requirement" | sed 's/\[[^]]*\]//')  # the version range, not the extras
    # One folder per requirement and Python: a cached wheel always fits both.
    cache="$WHEEL_CACHE/$({ echo "$requirement"; "$VENV/bin/python" -c 'import sys; print(sys.version_info[:2])'; } | sha256sum | cut -c1-12)"
    wheel=$(find "$cache" -name 'llama_cpp_python-*.whl' 2>/dev/null | sort -V | tail -n1 || true)
    if [ -z "$wheel" ]; then
        echo "Building $wanted for a portable CPU baseline (about 5 minutes, once per machine)"
        mkdir -p "$cache"
        CMAKE_ARGS="${CMAKE_ARGS:-} -DGGML_NATIVE=OFF" "$VENV/bin/python" -m pip wheel \
            --quiet --disable-pip-version-check --progress-bar off --no-cache-dir \
            --no-deps --wheel-dir "$cache" "$wanted"
        wheel=$(find "$cache" -name 'llama_cpp_python-*.whl' | sort -V | tail -n1)
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --progress-bar off \
        --force-reinstall --no-deps "$wheel"
    echo "$LLAMA_CPP_BUILD" >"$marker"
}

ensure_venv() {
    # The stamp holds the hash of pyproject.toml (and of the llama.cpp build flavour) and
    # the extras installed with it; asking for extras already installed (run-app after
    # test) installs nothing.
    local extras=$1 stamp hash installed wanted_extras extra
    if [ ! -x "$VENV/bin/python" ]; then
        create_venv
    fi
    stamp="$VENV/.acai-desktop-install-stamp"
    hash=$({ cat "$ROOT/pyproject.toml"; echo "$LLAMA_CPP_BUILD"; } | sha256sum | cut -d' ' -f1)
    installed=""
    if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$hash" ]; then
        installed=$(sed -n 2p "$stamp")
        local missing=0
        for extra in ${extras//,/ }; do
            case ",$installed," in *",$extra,"*) ;; *) missing=1 ;; esac
        done
        [ "$missing" -eq 0 ] && return 0
    fi
    # Keep what was installed before, so run-app and test do not undo each other.
    wanted_extras=$(echo "${installed:+$installed,}$extras" | tr ',' '\n' | sort -u | paste -sd, -)
    case ",$wanted_extras," in *",local,"*) install_portable_llama_cpp ;; esac
    echo "Installing acai-desktop[$wanted_extras] into $VENV" \
        "(llama-cpp-python compiles from source when not cached: about 5 minutes)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --progress-bar off -e "$ROOT[$wanted_extras]"
    printf '%s\n%s\n' "$hash" "$wanted_extras" >"$stamp"
}
