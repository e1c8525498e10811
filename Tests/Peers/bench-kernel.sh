#!/usr/bin/env bash
# `make bench-kernel`: one qemu boot of the kernel tier's guest against one echo peer; in it
# Tests/Peers/c/att_rtt.c (the C reference) and `hcipico rtt` time write -> notify round trips
# (Write Command to VSP RX, the echo notified on TX) in alternating rounds. Prints a table of
# the medians over the rounds and hcipico's CPU per round trip as a ratio of the C program's.
#
#   Tests/Peers/bench-kernel.sh --hcipico BIN --att-rtt BIN [--rounds N] [--count N] [--out DIR]
#
# Exit status: 0 measured (whether or not the 1.2x CPU target is met, which is printed);
# 1 a run failed; 2 bad usage; 3 harness failure (as kernel-tier.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hcipico=""
att_rtt=""
rounds=10
count=200
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --hcipico) hcipico=$2; shift 2 ;;
        --att-rtt) att_rtt=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[ -x "$hcipico" ] && [ -x "$att_rtt" ] || { echo "bench-kernel: give --hcipico and --att-rtt executables" >&2; exit 2; }
if [ -z "$out" ]; then
    mkdir -p "$root/.build/peers/runs"
    out=$(mktemp -d "$root/.build/peers/runs/bench-kernel.XXXXXX")
fi

status=0
"$here/kernel-tier.sh" --quiet --peer-args "--mode echo" --bin "$att_rtt" --bin "$hcipico" \
    --run "$here/vm/bench.sh" --env "BENCH_ROUNDS=$rounds" --env "BENCH_COUNT=$count" \
    --timeout 240 --out "$out" || status=$?
[ "$status" = 0 ] || exit "$status"

"$root/.venv/bin/python" - "$out/console.log" <<'PYTHON'
import json
import statistics
import sys

c_runs, swift_runs = [], []
setup = ""
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("ATT-RTT "):
        c_runs.append(json.loads(line[8:])["write_cmd"])
    elif line.startswith("HCIPICO-RTT "):
        swift_runs.append(json.loads(line[12:])["write_cmd"])
    elif line.startswith("BENCH "):
        setup = line[6:].strip()
if not c_runs or len(c_runs) != len(swift_runs):
    sys.exit(f"bench-kernel: {len(c_runs)} att_rtt and {len(swift_runs)} hcipico results in the console")


def median(runs, key):
    return statistics.median(run[key] for run in runs)


rows = []
for name, runs in (("att_rtt (C, libbluetooth)", c_runs), ("hcipico rtt (release)", swift_runs)):
    cpu = [run["cpu_us_per_rtt"] for run in runs]
    rows.append((name, median(runs, "median_ms"), median(runs, "p95_ms"), statistics.median(cpu), min(cpu),
                 median(runs, "stat_cpu_us_per_rtt")))
ratio = rows[1][3] / rows[0][3]
ratio_min = rows[1][4] / rows[0][4]
print(f"bench-kernel: {setup}")
print("| program | RTT median (ms) | RTT p95 (ms) | CPU/RTT median of rounds (µs) | CPU/RTT best round (µs) "
      "| CPU/RTT from /proc/self/stat (µs) |")
print("|---|---|---|---|---|---|")
for name, rtt, p95, cpu, best, stat in rows:
    print(f"| {name} | {rtt:.3f} | {p95:.3f} | {cpu:.1f} | {best:.1f} | {stat:.1f} |")
print("per round, CPU/RTT (µs): att_rtt " + ", ".join(f"{run['cpu_us_per_rtt']:.0f}" for run in c_runs)
      + "; hcipico " + ", ".join(f"{run['cpu_us_per_rtt']:.0f}" for run in swift_runs))
paired = statistics.median(s["cpu_us_per_rtt"] / c["cpu_us_per_rtt"] for c, s in zip(c_runs, swift_runs))
print(f"hcipico / att_rtt within each round (the order alternates): {paired:.2f}x median")
threads = {}
for run in swift_runs:
    for name, micros in run.get("threads_cpu_us_per_rtt", {}).items():
        threads.setdefault(name, []).append(micros)
if threads:
    ranked = sorted(threads.items(), key=lambda item: -statistics.median(item[1]))
    print("hcipico by thread, CPU/RTT median of rounds (µs; read just outside the window): "
          + ", ".join(f"{name} {statistics.median(values):.1f}" for name, values in ranked))
verdict = "met" if ratio <= 1.2 else "NOT met"
print(f"hcipico CPU per round trip / att_rtt's: {ratio:.2f}x median of rounds, {ratio_min:.2f}x best rounds "
      f"(target <= 1.2x: {verdict})")
PYTHON
echo "bench-kernel: console and peer files in $out"
