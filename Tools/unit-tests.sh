#!/usr/bin/env bash
# Runs the unit and in-memory tests (already built) and, when any fails, repeats every failing
# test's issues after swift test's summary line, so the end of a long log names what went wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
swift_cmd=${SWIFT:-swift}
log=$(mktemp "${TMPDIR:-/tmp}/hcipico-unit.XXXXXX")
trap 'rm -f "$log"' EXIT
"$swift_cmd" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "unit: swift test exited $status; the failures:"
    grep -E '✘|error:|recorded an issue|failed' "$log" | grep -v '^✔' | head -80
fi
exit "$status"
