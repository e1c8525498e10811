#!/usr/bin/env bash
# `make demo`: the main job on the built-in simulator. A rig of three simulated EmStat Picos
# (Examples/rig.toml: a CV every 25 s, a continuous CA, an EIS every 10 s) records for about 30 s into
# a fresh SQLite journal in out/; then `hcipico runs` lists what it recorded and `hcipico export`
# writes the last run of each device as a per-point CSV, JSON Lines, a PSTrace-style CSV, SVG and its
# analysis, and `hcipico analyze --stored` prints the peaks and the circuit fit the rig stored.
# DEMO_SECONDS (30) sets the length.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build -c release --show-bin-path)/hcipico"
seconds="${DEMO_SECONDS:-30}"
mkdir -p out/export
rm -f out/demo-rig.sqlite out/demo-rig.sqlite-wal out/demo-rig.sqlite-shm out/export/*
echo "== hcipico rig Examples/rig.toml --journal out/demo-rig.sqlite --for ${seconds}s"
"$bin" rig Examples/rig.toml --journal out/demo-rig.sqlite --for "${seconds}s"
echo
echo "== hcipico runs out/demo-rig.sqlite"
"$bin" runs out/demo-rig.sqlite
echo
echo "== hcipico export: the last complete run of each device"
for device in pico-cv pico-ca pico-eis; do
    last=$("$bin" runs out/demo-rig.sqlite --device "$device" --json | grep '"state":"complete"' | tail -n 1 |
        sed 's/^{"id":\([0-9]*\),.*/\1/')
    [ -n "$last" ] || { echo "$device: no complete run to export"; continue; }
    "$bin" export out/demo-rig.sqlite --run "$last" --out out/export
    lasts="${lasts:-} --run $last"
done
echo
echo "== hcipico analyze out/demo-rig.sqlite --stored: what the rig worked out as those runs ended"
# shellcheck disable=SC2086 # one --run per device
[ -z "${lasts:-}" ] || "$bin" analyze out/demo-rig.sqlite --stored $lasts
echo
echo "== summary"
runs=$("$bin" runs out/demo-rig.sqlite --json | wc -l)
complete=$("$bin" runs out/demo-rig.sqlite --json | grep -c '"state":"complete"' || true)
echo "journal:  $PWD/out/demo-rig.sqlite ($runs runs, $complete complete; the rest were cut short by the stop)"
echo "exports:  $PWD/out/export/ (per run: .csv, .jsonl, .pstrace.csv, .svg, .results.json, .results.csv)"
echo "query it: sqlite3 out/demo-rig.sqlite \"SELECT device, package, name, value, unit FROM samples LIMIT 5\" (apt install sqlite3)"
