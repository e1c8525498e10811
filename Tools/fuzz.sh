#!/usr/bin/env bash
# `make fuzz`: libFuzzer (with AddressSanitizer) over ReplyParser, LineFramer, PackageDecoder and the
# batch decoder. Bounded: FUZZ_RUNS executions (default 10,000,000) or FUZZ_SECONDS (default 900),
# whichever comes first (inputs up to FUZZ_MAX_LEN bytes, default 512). The committed seed corpus is copied, so the run does not change the tree;
# crashing inputs are kept in .build/fuzz/. Then Tools/fuzz-ble.sh fuzzes the BLE side with the same bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${FUZZ_RUNS:-10000000}"
seconds="${FUZZ_SECONDS:-900}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# MethodSCRIPT first, as its own module; then MethodSCRIPTBatch with the harness in the same module,
# so that the harness reaches the batch decoder's internals (its reference path).
flags=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name hcipico)
swiftc "${flags[@]}" -module-name MethodSCRIPT -wmo -c -emit-module -emit-module-path "$work/MethodSCRIPT.swiftmodule" \
    Sources/MethodSCRIPT/*.swift Sources/MethodSCRIPT/Generated/*.swift -o "$work/MethodSCRIPT.o" \
    2> >(grep -v 'Cannot export local symbol' >&2)
swiftc "${flags[@]}" -module-name MethodSCRIPTBatch -I "$work" Sources/MethodSCRIPTBatch/*.swift \
    Tests/Fuzz/FuzzMethodSCRIPT.swift "$work/MethodSCRIPT.o" \
    -o "$work/fuzz-methodscript" 2> >(grep -v 'Cannot export local symbol' >&2)
mkdir -p "$work/corpus" .build/fuzz
# Seeds: the hand-written edge cases, the test fixtures and the example transcript (each kept once in the tree).
cp Tests/Fuzz/corpus/* Tests/MethodSCRIPTTests/Fixtures/* Examples/transcripts/*.txt "$work/corpus/"
echo "fuzz: $runs runs at most, $seconds s at most"
"$work/fuzz-methodscript" -runs="$runs" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-512}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=.build/fuzz/ "$work/corpus"
Tools/fuzz-ble.sh
