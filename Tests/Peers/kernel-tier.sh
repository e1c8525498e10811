#!/usr/bin/env bash
# Kernel tier: boots Debian's kernel under qemu with its Bluetooth stack attached (btattach,
# H4 on ttyS1) to a fresh Bumble test peer, runs a test command inside the guest, and exits
# with the guest test's verdict. One peer process per boot; every wait is bounded.
#
#   Tests/Peers/kernel-tier.sh [options] [--bin FILE]... -- COMMAND [ARGS...]
#   Tests/Peers/kernel-tier.sh [options] [--bin FILE]... --run SCRIPT
#
#   --bin FILE        executable to put in the guest as /test/bin/<name> (on PATH), with
#                     every library ldd lists (repeatable; a SwiftPM .xctest works as is)
#   --file SRC:DEST   any extra file for the guest (repeatable)
#   --run SCRIPT      guest shell script to run instead of COMMAND
#   --peer-args "…"   extra picopeer.py options, e.g. "--mode echo --le-acl-len 251"
#   --env NAME=VALUE  an environment variable for the guest test (kernel command line; repeatable)
#   --timeout S       guest test timeout (default 120); the whole boot gets S + 60
#   --out DIR         keep console, peer log, btsnoop, xunit here (default: a new directory
#                     under .build/peers/runs/)
#   --quiet           print the guest console only on failure
# Environment: ACCEL (default "-accel tcg -cpu qemu64,+rdrand"), MEM (MB, default 2048),
#   BTATTACH_SPEED (guest UART speed, default 115200), PEERS_CACHE, KERNEL_PACKAGE,
#   KERNEL_BOOT=bzimage (boot Debian's bzImage instead of the unpacked ELF kernel via PVH).
# In the guest the command sees BLE_KERNEL_TESTS=1, BLE_PEER (first peripheral), BLE_PEERS
# (all, comma separated), NO_COLOR=1, HOME=/tmp, cwd /tmp; a /tmp/xunit.xml it writes is
# copied back to OUT/xunit.xml.
# Lines `KERNEL-CASE …` and `KERNEL-INFO …` the guest test prints (vm/kernel-cases.sh) are
# repeated after the run, also with --quiet.
# Exit status: 0 guest test passed; 1 it failed; 2 bad usage; 3 harness failure (peer,
# kernel, initramfs, qemu, timeout).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${PEERS_CACHE:-$root/.build/peers}
started=$(date +%s.%N)
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
harness_fail() { echo "kernel-tier: $*" >&2; exit 3; }

bins=()
files=()
run_script=""
peer_args=""
guest_env=""
test_timeout=120
out=""
quiet=no
command=()
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bins+=("$2"); shift 2 ;;
        --file) files+=("$2"); shift 2 ;;
        --run) run_script=$2; shift 2 ;;
        --peer-args) peer_args=$2; shift 2 ;;
        --env)
            case "$2" in
                [A-Z]*=*[[:space:]]*|[!A-Z]*) echo "kernel-tier: --env wants NAME=VALUE without spaces" >&2; exit 2 ;;
                [A-Z]*=*) guest_env+=" $2" ;;
                *) echo "kernel-tier: --env wants NAME=VALUE" >&2; exit 2 ;;
            esac
            shift 2 ;;
        --timeout) test_timeout=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --quiet) quiet=yes; shift ;;
        --) shift; command=("$@"); break ;;
        -h|--help) usage ;;
        *) echo "kernel-tier: unknown option '$1'" >&2; usage ;;
    esac
done
[ -n "$run_script" ] || [ ${#command[@]} -gt 0 ] || { echo "kernel-tier: give -- COMMAND or --run SCRIPT" >&2; usage; }
case "$test_timeout" in ''|*[!0-9]*) echo "kernel-tier: --timeout wants whole seconds" >&2; exit 2 ;; esac
command -v qemu-system-x86_64 >/dev/null || harness_fail "qemu-system-x86_64 not found (Tools/install-deps.sh test)"

if [ -z "$out" ]; then
    mkdir -p "$cache/runs"
    out=$(mktemp -d "$cache/runs/kernel-tier.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

"$root/Tools/install-peers.sh" >&2 || harness_fail "Tools/install-peers.sh failed"
kernel_root=$("$here/vm/fetch-kernel.sh") || harness_fail "could not fetch the Debian kernel"
version=$(cat "$kernel_root/../.ready")
kernel_image="$kernel_root/../vmlinux"  # PVH boot of the unpacked kernel; bzImage as fallback
[ -f "$kernel_image" ] && [ "${KERNEL_BOOT:-pvh}" = pvh ] || kernel_image="$kernel_root/boot/vmlinuz-$version"

# The guest's test script: the given one, or COMMAND quoted word by word.
guest_run="$out/run.sh"
if [ -n "$run_script" ]; then
    cp "$run_script" "$guest_run"
else
    { echo '#!/bin/sh'; printf '%q ' "${command[@]}"; echo; } > "$guest_run"
fi
chmod +x "$guest_run"

initramfs_args=(--kernel-root "$kernel_root" --out "$out/initramfs.cpio" --run "$guest_run")
for bin in "${bins[@]}"; do initramfs_args+=(--bin "$bin"); done
for spec in "${files[@]}"; do initramfs_args+=(--file "$spec"); done
"$here/vm/mkinitramfs.sh" "${initramfs_args[@]}" || harness_fail "initramfs build failed"

# A fresh peer on a free port; READY names the port and the peripherals' addresses.
peer_pid=""
qemu_status=0
cleanup() {
    if [ -n "$peer_pid" ] && kill -0 "$peer_pid" 2>/dev/null; then
        kill -TERM "$peer_pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$peer_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
# shellcheck disable=SC2086 # peer_args is a list of options
"$root/.venv/bin/python" "$here/picopeer.py" --listen 127.0.0.1:0 --btsnoop "$out/peer.btsnoop" \
    $peer_args > "$out/peer.out" 2> "$out/peer.log" &
peer_pid=$!
for _ in $(seq 1 300); do
    grep -q '^READY ' "$out/peer.out" 2>/dev/null && break
    kill -0 "$peer_pid" 2>/dev/null || break
    sleep 0.1
done
ready=$(grep -m 1 '^READY ' "$out/peer.out" || true)
[ -n "$ready" ] || { cat "$out/peer.log" >&2; harness_fail "peer did not print READY within 30 s"; }
port=$(sed -n 's/.* port=\([0-9]*\).*/\1/p' <<< "$ready")
peers=$(sed -n 's/.* peripherals=\([^ ]*\).*/\1/p' <<< "$ready")

# cryptomgr.notests=1: under TCG the kernel's ECDH self-test fails (-EFAULT), which leaves it without an
# LE Security Manager ("security requested but not available") and the security case without pairing.
append="console=ttyS0 quiet panic=-1 cryptomgr.notests=1 TEST_TIMEOUT=$test_timeout BLE_PEER=${peers%%,*} BLE_PEERS=$peers"
append+=" BTATTACH_SPEED=${BTATTACH_SPEED:-115200}$guest_env"
# shellcheck disable=SC2086 # ACCEL is a list of options
timeout --kill-after=5 $((test_timeout + 60)) qemu-system-x86_64 ${ACCEL:--accel tcg -cpu qemu64,+rdrand} \
    -m "${MEM:-2048}" -smp 1 -M pc -nographic -monitor none -no-reboot -nodefaults \
    -kernel "$kernel_image" -initrd "$out/initramfs.cpio" -append "$append" \
    -serial stdio -serial "tcp:127.0.0.1:$port,nodelay=on" < /dev/null > "$out/console.raw" 2>&1 ||
    qemu_status=$?
cleanup
peer_pid=""
tr -d '\r' < "$out/console.raw" > "$out/console.log" && rm -f "$out/console.raw"
sed -n '/^--- xunit$/,/^--- end xunit$/p' "$out/console.log" | sed '1d;$d' > "$out/xunit.xml"
[ -s "$out/xunit.xml" ] || rm -f "$out/xunit.xml"

result=$(grep -m 1 '^KERNEL-TIER-RESULT ' "$out/console.log" || true)
wall=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}")
stages=$(grep '^KERNEL-TIER-STAGE ' "$out/console.log" | awk '{printf "%s %s; ", $2, $3}' || true)
status=3
case "$result" in
    "KERNEL-TIER-RESULT PASS"*) status=0 ;;
    "KERNEL-TIER-RESULT FAIL rc=9"[0-9]*) status=3 ;;  # 90-99: guest harness (modules, hci0)
    "KERNEL-TIER-RESULT FAIL"*) status=1 ;;
esac
if [ "$status" != 0 ] || [ "$quiet" = no ]; then
    echo "----- guest console ($out/console.log)"
    cat "$out/console.log"
    echo "----- end of guest console"
fi
grep -E '^KERNEL-(CASE|INFO) ' "$out/console.log" || true
[ "$qemu_status" = 124 ] && echo "kernel-tier: qemu killed after $((test_timeout + 60)) s"
echo "kernel-tier: ${result:-no result marker (qemu status $qemu_status)}; wall ${wall}s; ${stages}kernel $version"
if [ "$status" = 0 ]; then
    rm -f "$out/initramfs.cpio"
else
    echo "kernel-tier: kept $out (console.log, peer.out, peer.log, peer.btsnoop, initramfs.cpio)"
fi
exit "$status"
