#!/usr/bin/env bash
# The tiers of `make test` after its checks: the build and the unit tests (`unit`), while the peers'
# pinned .venv/ is installed in the background (network, not CPU); then, each with BUILT=1, the Bumble peer
# tests (peers-h4) alone: beside the qemu guest their dozen Python peers starved it (its Bumble controller
# missed the kernel's command timeout at boot) and one of their signals took 2.3 s; then the kernel tier (a
# qemu guest on one CPU, the longest tier) in the background, and meanwhile the others in order on the
# other CPU (tier 1, BLELinux's H4 transports, export, fleet, the analysis anchors, check-docs, the package
# tier: a second qemu guest, a clean Debian booted with systemd). hcipico is relinked with the Swift runtime
# static after the unit tier, so every tier runs the binary the package holds. The output
# of a background step is kept in a file and shown when it has ended. Exit status: 0 when every tier
# passed; otherwise 1, after naming the tiers that failed (a failed build or unit tier, or a failed install,
# ends it there).
# Usage: Tools/test-tiers.sh [MAKE]
set -uo pipefail
cd "$(dirname "$0")/.."
make_cmd=${1:-make}
mkdir -p .build/peers
kernel_log=.build/peers/kernel-tier.log
started=$(date +%s)

peers_deps_log=.build/peers/peers-deps.log
debian_root_log=.build/peers/debian-root.log
echo "test-tiers: unit (the peers' .venv/ and the package tier's Debian root are made beside it)"
$make_cmd --no-print-directory peers-deps > "$peers_deps_log" 2>&1 &
peers_deps=$!
# What the package depends on today (deb-tier.sh downloads again if that changes).
Tests/Peers/vm/fetch-debian-root.sh libbluetooth3 libc6 libedit2 libgcc-s1 libsqlite3-0 libstdc++6 libsystemd0 \
    > "$debian_root_log" 2>&1 &
debian_root=$!
$make_cmd --no-print-directory unit
unit_status=$?
wait "$peers_deps"
peers_deps_status=$?
cat "$peers_deps_log"
if [ "$unit_status" -ne 0 ] || [ "$peers_deps_status" -ne 0 ]; then
    echo "test-tiers: FAILED: unit exit $unit_status, peers-deps exit $peers_deps_status" >&2
    exit 1
fi
# Every later tier runs hcipico as the package has it: linked with the Swift runtime static (a relink).
$make_cmd --no-print-directory hcipico-static || { echo "test-tiers: FAILED: static link" >&2; exit 1; }
$make_cmd --no-print-directory .build/peers/bin/att_rtt || { echo "test-tiers: FAILED: att_rtt" >&2; exit 1; }

failed=()
echo "test-tiers: peers-h4 (alone)"
$make_cmd --no-print-directory BUILT=1 peers-h4 || failed+=(peers-h4)

$make_cmd --no-print-directory BUILT=1 peers-kernel > "$kernel_log" 2>&1 &
kernel=$!
stop_kernel() { kill -TERM -- "$kernel" 2>/dev/null || true; }
trap stop_kernel INT TERM

for tier in peers-tier1 peers-h4-blelinux peers-export peers-fleet peers-api peers-analysis check-docs; do
    echo "test-tiers: $tier (the kernel tier runs beside it)"
    $make_cmd --no-print-directory BUILT=1 "$tier" || failed+=("$tier")
done

wait "$debian_root" || { cat "$debian_root_log"; echo "test-tiers: the package tier's Debian root failed" >&2; }
echo "test-tiers: peers-deb (the kernel tier runs beside it)"
$make_cmd --no-print-directory BUILT=1 peers-deb || failed+=(peers-deb)

echo "test-tiers: waiting for the kernel tier"
wait "$kernel"
kernel_status=$?
echo "---- the kernel tier (peers-kernel), exit $kernel_status ----"
cat "$kernel_log"
echo "---- end of the kernel tier ----"
[ "$kernel_status" -eq 0 ] || failed+=(peers-kernel)

elapsed=$(($(date +%s) - started))
if [ ${#failed[@]} -gt 0 ]; then
    echo "test-tiers: FAILED: ${failed[*]} (${elapsed} s)" >&2
    exit 1
fi
echo "test-tiers: every tier passed (${elapsed} s)"
