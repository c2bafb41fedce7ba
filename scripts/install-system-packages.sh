#!/usr/bin/env bash
# Installs the Debian packages TelemetryKit's targets link against, where they are missing:
# SQLite and zlib headers (durable cache, gzip), pkg-config, and JavaScriptCore (the JavaScript
# transformer, built with --enable-all-traits), and the OpenTelemetry project's Python protobuf
# classes that the OTLP tests decode every request body with (PyPI opentelemetry-proto, for
# TestSupport/OTLPReceiver/otlp_receiver.py). Uses sudo when not run as root.
set -euo pipefail

# The OTLP receiver of the TelemetryKitOpenTelemetry tests (trait OpenTelemetry).
otlp_proto="opentelemetry-proto==1.45.2"
if ! python3 -c "import opentelemetry.proto.collector.logs.v1.logs_service_pb2" >/dev/null 2>&1; then
    echo "installing: ${otlp_proto} (pip)" >&2
    # A Debian-managed python3 refuses user installs unless told (PEP 668).
    python3 -m pip install --quiet --disable-pip-version-check "${otlp_proto}" \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${otlp_proto}"
fi

# macOS (.github/workflows/apple.yml): the SDK has SQLite, zlib and JavaScriptCore; no apt.
[ "$(uname -s)" != Darwin ] || exit 0

missing=()
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists javascriptcoregtk-4.0; }; then
    missing+=(libjavascriptcoregtk-4.0-dev)
fi
# Headless Chromium, in which TelemetryKitCollectorTests load the collector's page, and a font
# for the page's screenshot.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -d /usr/share/fonts/truetype/dejavu ] || missing+=(fonts-dejavu-core)
[ "${#missing[@]}" -gt 0 ] || exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
