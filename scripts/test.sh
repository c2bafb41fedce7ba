#!/usr/bin/env bash
# The README's test command: installs what a fresh machine lacks (scripts/install-system-packages.sh),
# then runs every test with every trait enabled. Extra arguments go to `swift test`
# (e.g. `scripts/test.sh --filter TelemetryKitTests`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-system-packages.sh
exec swift test --enable-all-traits "$@"
