# Shared by scripts/run and scripts/test: find Swift, install Debian packages when missing.
# shellcheck shell=bash

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

# Swift lives in /opt/swift on our machines; make sure it is on PATH.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "swift not found: install Swift 6 (https://swift.org/install)" >&2; exit 1; }

# The system libraries Pacenote links against, and the tools needed to build it.
CORE_PACKAGES=(pkg-config libsqlite3-dev libmicrohttpd-dev libmpdclient-dev)

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
