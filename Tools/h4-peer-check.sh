#!/usr/bin/env bash
# BLELinux's H4 transports against Bumble's emulated controller: starts two fresh test peers
# (Tests/Peers/run-peer.sh), one on TCP and one on a pseudo-terminal, runs the H4PeerTests suite
# with HCIPICO_H4_PEER=127.0.0.1:<port> and HCIPICO_H4_SERIAL=<pty>, stops the peers.
# Exit status: that of the tests; 3 when a peer does not start.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(mktemp -d)
pids=()
stop_peers() {
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || continue
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$out"
}
trap stop_peers EXIT

# start_peer NAME ARGS...: a peer with its output in $out/NAME.out; waits for its READY line.
start_peer() {
    local name=$1
    shift
    Tests/Peers/run-peer.sh --mode echo "$@" > "$out/$name.out" 2> "$out/$name.log" &
    pids+=($!)
    for _ in $(seq 1 300); do
        grep -q '^READY ' "$out/$name.out" 2>/dev/null && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    cat "$out/$name.log" >&2
    echo "h4-peer-check: the $name peer did not start" >&2
    exit 3
}

start_peer tcp --listen 127.0.0.1:0
start_peer serial --transport "pty:$out/pty"
port=$(sed -n 's/^READY port=\([0-9]*\).*/\1/p' "$out/tcp.out")
HCIPICO_H4_PEER="127.0.0.1:$port" HCIPICO_H4_SERIAL="$out/pty" swift test --skip-build --filter H4PeerTests
