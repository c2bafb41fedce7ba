#!/usr/bin/env bash
# The README's test command. On a fresh machine it first installs the Debian packages the
# tests link against (SQLite, zlib, JavaScriptCore for the JavaScript transformer), then runs
# every test with every trait enabled. Extra arguments go to `swift test`
# (e.g. `scripts/test.sh --filter TelemetryKitTests`).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists javascriptcoregtk-4.0; }; then
    missing+=(libjavascriptcoregtk-4.0-dev)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "scripts/test.sh: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

exec swift test --enable-all-traits "$@"
