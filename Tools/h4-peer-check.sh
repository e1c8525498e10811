#!/usr/bin/env bash
# BLELinux's H4 transports against Bumble's emulated controller: starts two fresh test peers
# (Tests/Peers/run-peer.sh), one on TCP and one on a pseudo-terminal, runs the H4PeerTests suite
# with HCIPICO_H4_PEER=127.0.0.1:<port> and HCIPICO_H4_SERIAL=<pty>, and the built hcipico (the path in
# $1, or the debug build's) over the serial transport; stops the peers.
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
start_peer serial --transport "pty:$out/pty" --mode echo,pico --peripherals 2
port=$(sed -n 's/^READY port=\([0-9]*\).*/\1/p' "$out/tcp.out")
HCIPICO_H4_PEER="127.0.0.1:$port" HCIPICO_H4_SERIAL="$out/pty" swift test --skip-build --filter H4PeerTests

# Every device command through the built hcipico over the serial (UART) transport: the peer's
# central-side controller on a pseudo-terminal, an echo peripheral (…:55) and a Pico (…:56).
bin="${1:-$(swift build --show-bin-path)/hcipico}"
uart="serial:$out/pty"
echo_peer=F0:11:22:33:44:55
pico_peer=F0:11:22:33:44:56
check() {
    local what=$1
    shift
    if ! "$@" > "$out/cli.out" 2> "$out/cli.err"; then
        cat "$out/cli.out" "$out/cli.err" >&2
        echo "h4-peer-check: FAIL over $uart: $what" >&2
        exit 1
    fi
}
check "scan" "$bin" scan --transport "$uart" --json --timeout 3
grep -q "\"$echo_peer\"" "$out/cli.out" && grep -q "\"$pico_peer\"" "$out/cli.out" \
    || { cat "$out/cli.out" >&2; echo "h4-peer-check: FAIL: scan over $uart missed a peripheral" >&2; exit 1; }
check "gatt services" "$bin" gatt "$echo_peer" --random --transport "$uart" services
grep -q "Laird Virtual Serial Port service" "$out/cli.out" \
    || { cat "$out/cli.out" >&2; echo "h4-peer-check: FAIL: gatt services over $uart" >&2; exit 1; }
head -c 3000 /dev/urandom > "$out/serial.in"
check "serial" "$bin" serial "$echo_peer" --random --transport "$uart" --idle 1 < "$out/serial.in"
cmp "$out/serial.in" "$out/cli.out" \
    || { echo "h4-peer-check: FAIL: serial round trip over $uart is not byte-exact" >&2; exit 1; }
check "connect" "$bin" connect "$pico_peer" --random --transport "$uart" --technique lsv --quiet --csv "$out/lsv.csv"
grep -q "^# end: complete" "$out/lsv.csv" \
    || { tail -n 3 "$out/lsv.csv" >&2; echo "h4-peer-check: FAIL: connect over $uart" >&2; exit 1; }
echo "h4-peer-check: scan, gatt, serial and connect over $uart: PASS"
