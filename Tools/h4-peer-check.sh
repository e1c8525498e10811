#!/usr/bin/env bash
# BLELinux's H4-over-TCP transport against Bumble's emulated controller: starts a fresh test peer
# (Tests/Peers/run-peer.sh), runs the H4PeerTests suite with HCIPICO_H4_PEER=127.0.0.1:<port>,
# stops the peer. Exit status: that of the tests; 3 when the peer does not start.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(mktemp -d)
peer_pid=""
stop_peer() {
    if [ -n "$peer_pid" ] && kill -0 "$peer_pid" 2>/dev/null; then
        kill -TERM "$peer_pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$peer_pid" 2>/dev/null || true
    fi
    rm -rf "$out"
}
trap stop_peer EXIT
Tests/Peers/run-peer.sh --listen 127.0.0.1:0 --mode echo > "$out/peer.out" 2> "$out/peer.log" &
peer_pid=$!
for _ in $(seq 1 300); do
    grep -q '^READY ' "$out/peer.out" 2>/dev/null && break
    kill -0 "$peer_pid" 2>/dev/null || break
    sleep 0.1
done
port=$(sed -n 's/^READY port=\([0-9]*\).*/\1/p' "$out/peer.out")
[ -n "$port" ] || { cat "$out/peer.log" >&2; echo "h4-peer-check: the peer did not start" >&2; exit 3; }
HCIPICO_H4_PEER="127.0.0.1:$port" swift test --skip-build --filter H4PeerTests
