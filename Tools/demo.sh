#!/usr/bin/env bash
# `make demo`: a cyclic voltammogram on the built-in simulated EmStat Pico (in-process, over the same
# GATT client and session code as a real device), written as CSV, JSON Lines and SVG into out/.
# DEMO_REALTIME=1 runs the simulator in real time (about 20 s) instead of as fast as possible.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build -c release --show-bin-path)/hcipico"
mkdir -p out
speed=(--fast)
if [ "${DEMO_REALTIME:-0}" = 1 ]; then speed=(); fi
echo "== hcipico connect sim ${speed[*]} --technique cv"
"$bin" connect sim "${speed[@]}" --technique cv --overwrite --csv out/cv.csv --jsonl out/cv.jsonl --svg out/cv.svg
echo "== results"
echo "CSV:         $PWD/out/cv.csv ($(grep -vc '^#' out/cv.csv) lines, last: $(tail -n 1 out/cv.csv))"
echo "JSON Lines:  $PWD/out/cv.jsonl"
echo "SVG plot:    $PWD/out/cv.svg"
