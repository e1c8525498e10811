#!/usr/bin/env bash
# Package tier: boots a clean Debian 12 root (debootstrap, cached) with systemd under qemu, with no
# network and no Swift toolchain, and installs, reloads, upgrades, stops, removes and purges the
# hcipico package there (Tests/Peers/vm/deb-cases.sh).
#
#   Tests/Peers/deb-tier.sh OLD.deb NEW.deb [--timeout S] [--out DIR]
#
# NEW.deb must have a higher version than OLD.deb (the upgrade). The root's apt cache holds the
# .debs of what the package depends on, so apt resolves them offline. Environment: ACCEL (default
# "-accel tcg -cpu qemu64,+rdrand"), MEM (MB, default 2048), PEERS_CACHE.
# Exit status: 0 every case passed; 1 a case failed; 2 bad usage; 3 harness failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${PEERS_CACHE:-$root/.build/peers}
harness_fail() { echo "deb-tier: $*" >&2; exit 3; }

old=${1:-}
new=${2:-}
[ -f "$old" ] && [ -f "$new" ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
shift 2
timeout_s=300
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) timeout_s=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "deb-tier: unknown option $1" >&2; exit 2 ;;
    esac
done
dpkg --compare-versions "$(dpkg-deb -f "$new" Version)" gt "$(dpkg-deb -f "$old" Version)" ||
    { echo "deb-tier: $new is not newer than $old" >&2; exit 2; }
command -v qemu-system-x86_64 > /dev/null || harness_fail "qemu-system-x86_64 not found (Tools/install-deps.sh test)"
if [ -z "$out" ]; then
    mkdir -p "$cache/runs"
    out=$(mktemp -d "$cache/runs/deb-tier.XXXXXX")
fi
mkdir -p "$out"

# What the package depends on, as package names, for the root's apt cache.
depends=$(dpkg-deb -f "$new" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' | sed '/^$/d' | sort -u)
# shellcheck disable=SC2086 # one word per package
debian_root=$("$here/vm/fetch-debian-root.sh" $depends) || harness_fail "could not make the Debian root"
kernel_root=$("$here/vm/fetch-kernel.sh") || harness_fail "could not fetch the Debian kernel"
kernel_image="$kernel_root/../vmlinux"
[ -f "$kernel_image" ] || kernel_image="$kernel_root/boot/vmlinuz-$(cat "$kernel_root/../.ready")"

# The initramfs: the cached root as one cpio archive (made once), and the test's files as a second
# one appended (the kernel unpacks both, the second over the first).
base="$cache/debian-root/root.cpio"
if [ ! -f "$base" ] || [ "$base" -ot "$cache/debian-root/.downloaded" ]; then
    (cd "$debian_root" && find . -xdev | cpio -o -H newc --quiet > "$base.tmp") && mv "$base.tmp" "$base" ||
        harness_fail "cpio of the Debian root failed"
fi
overlay=$(mktemp -d "${TMPDIR:-/tmp}/deb-tier.XXXXXX")
trap 'rm -rf "$overlay"' EXIT
# Its "." becomes the guest's /: the mode of a root directory, not mktemp's 0700.
chmod 0755 "$overlay"
mkdir -p "$overlay/test" "$overlay/etc/systemd/system/multi-user.target.wants"
install -m 0644 "$old" "$overlay/test/old.deb"
install -m 0644 "$new" "$overlay/test/new.deb"
install -m 0755 "$here/vm/deb-cases.sh" "$overlay/test/deb-cases.sh"
cat > "$overlay/etc/systemd/system/hcipico-deb-test.service" << 'EOF'
[Unit]
Description=hcipico package tier
[Service]
Type=simple
WorkingDirectory=/tmp
ExecStart=/test/deb-cases.sh
EOF
ln -s ../hcipico-deb-test.service "$overlay/etc/systemd/system/multi-user.target.wants/hcipico-deb-test.service"
# Nothing else on the console; no timers that would start apt on their own.
for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer; do
    ln -s /dev/null "$overlay/etc/systemd/system/$unit"
done
(cd "$overlay" && find . | cpio -o -H newc --quiet) > "$out/test.cpio"
cat "$base" "$out/test.cpio" > "$out/initramfs.cpio"
rm -f "$out/test.cpio"

append="console=ttyS0 rdinit=/lib/systemd/systemd quiet panic=-1 systemd.show_status=0"
status=0
# shellcheck disable=SC2086 # ACCEL is a list of options
timeout --kill-after=5 "$timeout_s" qemu-system-x86_64 ${ACCEL:--accel tcg -cpu qemu64,+rdrand} \
    -m "${MEM:-2048}" -smp 1 -M pc -nographic -monitor none -no-reboot -nodefaults \
    -kernel "$kernel_image" -initrd "$out/initramfs.cpio" -append "$append" \
    -serial stdio < /dev/null > "$out/console.raw" 2>&1 || status=$?
rm -f "$out/initramfs.cpio"
tr -d '\r' < "$out/console.raw" > "$out/console.log" && rm -f "$out/console.raw"
grep -E '^DEB-(CASE|TIER-STAGE) ' "$out/console.log" | sed 's/^/deb-tier: /'
result=$(grep -m 1 '^DEB-TIER-RESULT ' "$out/console.log" || true)
if [ -z "$result" ]; then
    tail -n 40 "$out/console.log" >&2
    harness_fail "no result from the guest (qemu exit $status; console: $out/console.log)"
fi
echo "deb-tier: $result"
[ "$result" = "DEB-TIER-RESULT PASS" ] || { echo "deb-tier: console: $out/console.log" >&2; exit 1; }
rm -rf "$out"
