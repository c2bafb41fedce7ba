#!/usr/bin/env bash
# Installs the Debian packages TelemetryKit's targets link against, where they are missing:
# SQLite and zlib headers (durable cache, gzip), pkg-config, and JavaScriptCore (the JavaScript
# transformer, built with --enable-all-traits). Uses sudo when not run as root.
set -euo pipefail

missing=()
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists javascriptcoregtk-4.0; }; then
    missing+=(libjavascriptcoregtk-4.0-dev)
fi
[ "${#missing[@]}" -gt 0 ] || exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
