#!/usr/bin/env bash
# The rig's fleet side against real peers: a throwaway PostgreSQL cluster (Tools/pg-cluster.sh), headless
# Chromium driven by the pinned Selenium, and the pinned prometheus-client's text-format parser
# (Tests/Peers/fleet_check.py does the checking):
#
#   1. Outage: a rig of three simulated Picos forwards to PostgreSQL while the server is stopped and
#      started again twice, then is killed (SIGKILL) during a third outage and started again; after
#      SIGTERM every journal package is in PostgreSQL exactly once, with the same values, in order, and
#      the runs' states agree (the killed runs' "rig restarted" included). Meanwhile the status page, loaded in
#      Chromium, shows three devices and a live plot whose point count grows between two screenshots.
#   2. Metrics and access: the status server bound to 0.0.0.0 with a token; /metrics parses and its
#      counters agree with the journal; a request without the token (or with a wrong one) gets 401;
#      the PostgreSQL password never shows in the log, /api/status, /metrics or the page.
#
# Screenshots and logs are kept in .build/peers/fleet/ (the PNGs as the test's artefacts).
#
#   Tests/Peers/fleet-check.sh [--bin PATH]    (default: the debug build's hcipico)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        *) echo "fleet-check: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$bin" ] || bin="$(cd "$root" && swift build --show-bin-path)/hcipico"
[ -x "$bin" ] || { echo "fleet-check: $bin not found (swift build --product hcipico)" >&2; exit 2; }
"$root/Tools/install-peers.sh" >&2

artefacts=${PEERS_CACHE:-$root/.build/peers}/fleet
rm -rf "$artefacts"
mkdir -p "$artefacts"
# The cluster's folder must be short (a Unix socket path) and reachable by the server's own user.
cluster=$(mktemp -d /tmp/hcipico-pg.XXXXXX)
rmdir "$cluster"
cleanup() { "$root/Tools/pg-cluster.sh" destroy "$cluster" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$root/Tools/pg-cluster.sh" start "$cluster"

"$root/.venv/bin/python" "$here/fleet_check.py" --bin "$bin" --cluster "$cluster" \
    --pg-cluster "$root/Tools/pg-cluster.sh" --examples "$root/Examples" --out "$artefacts"
