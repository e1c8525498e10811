#!/usr/bin/env bash
# The BLE half of `make fuzz` (called by Tools/fuzz.sh): libFuzzer (with AddressSanitizer) over the
# BLEWire decoders, the H4 framer, L2CAP reassembly and HCIHost's receive path with a live connection
# (Tests/Fuzz/FuzzBLE.swift). Bounded as the MethodSCRIPT run: FUZZ_RUNS executions (default 10,000,000)
# or FUZZ_SECONDS (default 900), whichever comes first, inputs up to FUZZ_MAX_LEN bytes (default 512).
# FUZZ_BLE_PART=name[,name…] keeps the run to those parts of the harness. The committed seed corpus is
# copied, so the run does not change the tree; crashing inputs are kept in .build/fuzz/.
#
# `Tools/fuzz-ble.sh --binary PATH` only builds the harness, to PATH (to replay an input: `PATH INPUT`).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${FUZZ_RUNS:-10000000}"
seconds="${FUZZ_SECONDS:-900}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
binary="$work/fuzz-ble"
if [[ "${1:-}" == "--binary" ]]; then binary="${2:?--binary needs a path}"; fi

# BLEWire and Coordination first, each as its own module (BLEHost imports them); then BLEHost with the harness in the same
# module, so that the harness reaches the host's internals (its state, L2CAPReassembler).
flags=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name hcipico)
mapfile -t wire < <(find Sources/BLEWire -name '*.swift' | sort)
mapfile -t coordination < <(find Sources/Coordination -name '*.swift' | sort)
# Without swift-crypto: the two files that need it give way to stand-ins (Tests/Fuzz/SMPWithoutCrypto.swift).
mapfile -t host < <(find Sources/BLEHost -name '*.swift' ! -name SMPToolbox.swift ! -name SecureConnectionsPairing.swift | sort)
swiftc "${flags[@]}" -module-name BLEWire -wmo -c -emit-module -emit-module-path "$work/BLEWire.swiftmodule" \
    "${wire[@]}" -o "$work/BLEWire.o" 2> >(grep -v 'Cannot export local symbol' >&2)
swiftc "${flags[@]}" -module-name Coordination -wmo -c -emit-module -emit-module-path "$work/Coordination.swiftmodule" \
    "${coordination[@]}" -o "$work/Coordination.o" 2> >(grep -v 'Cannot export local symbol' >&2)
swiftc "${flags[@]}" -module-name BLEHost -I "$work" "${host[@]}" Tests/Fuzz/SMPWithoutCrypto.swift Tests/Fuzz/FuzzBLE.swift "$work/BLEWire.o" "$work/Coordination.o" \
    -o "$binary" 2> >(grep -v 'Cannot export local symbol' >&2)
if [[ "${1:-}" == "--binary" ]]; then exit 0; fi

# The Swift runtime's own crash backtracer reads memory AddressSanitizer then reports: leave crashes to
# libFuzzer, which prints the stack and keeps the input.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
# Swift weak-reference side tables are not leaks (see the file).
export LSAN_OPTIONS="suppressions=$PWD/Tests/Fuzz/lsan-ble.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p "$work/corpus" .build/fuzz
cp Tests/Fuzz/corpus-ble/* "$work/corpus/"
echo "fuzz-ble: $runs runs at most, $seconds s at most${FUZZ_BLE_PART:+, parts $FUZZ_BLE_PART only}"
"$binary" -runs="$runs" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-512}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=.build/fuzz/ "$work/corpus"
