#!/usr/bin/env bash
# Tier-1 smoke: the peer's Pico model unit tests, then Bumble's own host (anchor.py) against a
# fresh test peer over H4/TCP in the peer configurations the user-space tests use. Each case
# gets its own peer process.
# Exit status 0 when every case passed. Artifacts of failed cases are kept under
# .build/peers/runs/tier1.*/ (peer.out, peer.log, peer.btsnoop, anchor.json).
#
#   Tests/Peers/tier1-smoke.sh [--rounds N] [--blast N]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${PEERS_CACHE:-$root/.build/peers}
rounds=50
blast=500
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --blast) blast=$2; shift 2 ;;
        *) echo "tier1-smoke: unknown option '$1'" >&2; exit 2 ;;
    esac
done
"$root/Tools/install-peers.sh" >&2
python="$root/.venv/bin/python"
mkdir -p "$cache/runs"
out=$(mktemp -d "$cache/runs/tier1.XXXXXX")

peer_pid=""
stop_peer() {
    if [ -n "$peer_pid" ] && kill -0 "$peer_pid" 2>/dev/null; then
        kill -TERM "$peer_pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$peer_pid" 2>/dev/null || true
    fi
    peer_pid=""
}
trap stop_peer EXIT

summarize() {  # the anchor's JSON in one short line
    "$python" - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
parts = [f"{len(r['checks'])} checks ok", f"connect {r['connect_ms']} ms"]
for kind in ("rtt_write_req", "rtt_write_cmd"):
    if kind in r:
        parts.append(f"{kind} median {r[kind]['median_ms']} ms p99 {r[kind]['p99_ms']} ms")
if "blast" in r:
    parts.append(f"{r['blast']['notifications_per_s']} notifications/s")
if "script_ms" in r:
    parts.append(f"script {r['script_ms']} ms")
print("; ".join(parts))
PY
}

failed=0
if unit=$(cd "$here" && "$python" -m unittest test_pico 2>&1); then
    echo "tier1-smoke: PASS test_pico ($(tail -n 3 <<< "$unit" | head -n 1))"
else
    echo "$unit"; echo "tier1-smoke: FAIL test_pico"; failed=1
fi
run_case() {  # run_case NAME "PEER ARGS" "ANCHOR ARGS" [EXPECTED EVENT]
    local name=$1 dir="$out/$1" started port ready status=0
    mkdir -p "$dir"
    started=$(date +%s.%N)
    # shellcheck disable=SC2086 # argument lists
    "$python" "$here/picopeer.py" --listen 127.0.0.1:0 --btsnoop "$dir/peer.btsnoop" $2 \
        > "$dir/peer.out" 2> "$dir/peer.log" &
    peer_pid=$!
    for _ in $(seq 1 300); do
        grep -q '^READY ' "$dir/peer.out" 2>/dev/null && break
        kill -0 "$peer_pid" 2>/dev/null || break
        sleep 0.1
    done
    ready=$(grep -m 1 '^READY ' "$dir/peer.out" || true)
    if [ -z "$ready" ]; then
        echo "tier1-smoke: $name: peer did not start"; cat "$dir/peer.log"; failed=1; stop_peer; return
    fi
    port=$(sed -n 's/.* port=\([0-9]*\).*/\1/p' <<< "$ready")
    # shellcheck disable=SC2086
    timeout 60 "$python" "$here/anchor.py" --port "$port" $3 > "$dir/anchor.json" || status=$?
    sleep 0.2
    stop_peer
    if [ "$status" = 0 ] && [ -n "${4:-}" ] && ! grep -q "\"event\": \"$4\"" "$dir/peer.out"; then
        echo "tier1-smoke: $name: the peer never reported '$4'"; status=1
    fi
    local wall
    wall=$(awk "BEGIN {printf \"%.2f\", $(date +%s.%N) - $started}")
    if [ "$status" = 0 ]; then
        echo "tier1-smoke: PASS $name (${wall}s) $(summarize "$dir/anchor.json")"
    else
        echo "tier1-smoke: FAIL $name (${wall}s, status $status), kept $dir"
        cat "$dir/anchor.json"; tail -n 20 "$dir/peer.log"; failed=1
    fi
}

run_case echo-acl27 "--mode echo --le-acl-len 27" "--scenario echo --rounds $rounds --blast $blast"
run_case echo-acl251 "--mode echo --le-acl-len 251" "--scenario echo --rounds $rounds --blast $blast"
run_case pico-acl27-legacy-scan "--mode pico --le-acl-len 27" "--scenario pico --legacy-scan"
run_case pico-two-peripherals "--mode pico --peripherals 2" "--scenario pico --peripherals 2"
run_case pico-conn-update "--mode pico --conn-update --conn-update-delay 0" "--scenario pico" conn-param-update
if [ "$failed" = 0 ]; then rm -rf "$out"; fi
exit "$failed"
