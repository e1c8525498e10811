#!/bin/sh
# Guest side of `make bench-kernel` (peer --mode echo): write -> notify round trips against the
# same echo peripheral, by Tests/Peers/c/att_rtt.c and by `hcipico rtt`, alternating which goes
# first, BENCH_ROUNDS times with BENCH_COUNT round trips each (payload BENCH_SIZE bytes, the
# 10 bytes att_rtt writes). Prints `ATT-RTT {…}` and `HCIPICO-RTT {…}` lines for the host.
set -u
rounds=${BENCH_ROUNDS:-10}
count=${BENCH_COUNT:-200}
size=${BENCH_SIZE:-10}
peer=${BLE_PEER:?}

c_run() {
    att_rtt -n "$count" "$peer" > att_rtt.out || { cat att_rtt.out; return 1; }
    grep '^ATT-RTT \|^RTT ' att_rtt.out
}
swift_run() {
    hcipico rtt "$peer" --random --count "$count" --size "$size" --json > hcipico.json || return 1
    echo "HCIPICO-RTT $(cat hcipico.json)"
}

echo "BENCH rounds=$rounds count=$count size=$size peer=$peer $(uname -r)"
for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then
        c_run || exit 1
        swift_run || exit 1
    else
        swift_run || exit 1
        c_run || exit 1
    fi
done
