# Shared by scripts/run and scripts/test: find Swift, install Debian packages when missing.
# shellcheck shell=bash

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

# Swift lives in /opt/swift on our machines; make sure it is on PATH.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "swift not found: install Swift 6 (https://swift.org/install)" >&2; exit 1; }

# The system libraries Pacenote links against, and the tools needed to build it. The release
# binary carries the Swift runtime and Foundation inside it (--static-swift-stdlib: ~8 MiB less
# resident memory than the shared libraries), so the C libraries that Foundation's networking
# and XML parts call are linked too: libcurl and libxml2.
CORE_PACKAGES=(pkg-config libsqlite3-dev libmicrohttpd-dev libmpdclient-dev libcurl4-openssl-dev libdbus-1-dev libxml2-dev zlib1g-dev librubberband2 libsndfile1 libaubio5 libebur128-1)

# build_release: the binary scripts/run starts, the benchmarks measure and CI builds.
build_release() {
    swift build -c release --product pacenote --static-swift-stdlib "$@"
}

# What scripts/package needs besides the build: dpkg-shlibdeps (dpkg-dev) and strip (binutils).
PACKAGE_TOOLS=(dpkg-dev binutils)

# build_manual_tool: swift-argument-parser's generate-manual, which writes man pages from a
# command's help (scripts/package). Built with build_release's flags, so neither rebuilds the other.
build_manual_tool() {
    swift build -c release --product generate-manual --static-swift-stdlib
}

# ensure_packages PKG...: installs the packages that are not installed yet.
ensure_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}" >&2
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    # This image deletes downloaded .debs after dpkg runs, which once broke an install
    # half-way; finishing dpkg's work and trying once more fixes it (shared/PLATFORM.md).
    if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
        "${sudo[@]}" dpkg --configure -a || true
        "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

# ensure_python_packages SPEC...: pip-installs Python packages the tests use, if missing.
ensure_python_packages() {
    command -v python3 >/dev/null 2>&1 || ensure_packages python3
    python3 -c "import pip" >/dev/null 2>&1 || ensure_packages python3-pip
    # One Python for every name (a `pip show` each took 3 to 5 s on a busy box).
    local missing=()
    mapfile -t missing < <(python3 -c '
import importlib.metadata as m, re, sys
for spec in sys.argv[1:]:
    try:
        m.distribution(re.split("[=<>]", spec)[0])
    except m.PackageNotFoundError:
        print(spec)' "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing (pip): ${missing[*]}" >&2
    python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}" \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${missing[@]}"
}

# ensure_maloja: a real Maloja server (PyPI's malojaserver, pinned in maloja-requirements.txt
# beside this file) in its own venv at .build-maloja-venv/, for the tests that forward plays to
# Maloja (Tests/PacenoteEndToEndTests/Clients/maloja_server.py finds it there, or at
# $PACENOTE_MALOJA_PYTHON). Maloja wants CPython 3.12: pyenv's 3.12.1 when present, else any
# python3.12 on PATH. Reinstalls only when the pinned list changed; prints nothing when done.
MALOJA_VENV="$PWD/.build-maloja-venv"
ensure_maloja() {
    local requirements="scripts/lib/maloja-requirements.txt"
    if [ -x "$MALOJA_VENV/bin/maloja" ] && cmp -s "$requirements" "$MALOJA_VENV/requirements.txt"; then
        return 0
    fi
    # python-magic loads libmagic (Debian's file package depends on it).
    ensure_packages file
    local python=""
    for candidate in "$HOME/.pyenv/versions/3.12.1/bin/python3" python3.12; do
        if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then
            python="$candidate"
            break
        fi
    done
    [ -n "$python" ] || { echo "Maloja needs Python 3.12 (pyenv's 3.12.1 or python3.12 on PATH): none found" >&2; return 1; }
    echo "installing Maloja into $MALOJA_VENV" >&2
    rm -rf "$MALOJA_VENV"
    "$python" -m venv "$MALOJA_VENV"
    "$MALOJA_VENV/bin/python3" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    cp "$requirements" "$MALOJA_VENV/requirements.txt"
}
