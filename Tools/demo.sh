#!/usr/bin/env bash
# `make demo`: until the simulator exists, decode the example LSV transcript (EmStat Pico, 10 kΩ
# dummy cell) with the release build of `hcipico decode`, as a table and as JSON Lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build -c release --show-bin-path)/hcipico"
transcript=Examples/transcripts/lsv_10k.txt
echo "== hcipico decode $transcript"
"$bin" decode "$transcript"
echo "== hcipico decode --jsonl $transcript (first 3 rows)"
"$bin" decode --jsonl "$transcript" | sed -n 1,3p
