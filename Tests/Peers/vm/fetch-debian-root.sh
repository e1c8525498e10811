#!/usr/bin/env bash
# A clean Debian 12 root with systemd for the package tier (debootstrap, minbase), and in its apt
# cache the .debs of PACKAGES (what the hcipico package depends on), so that `apt install ./hcipico…deb`
# in a guest without a network resolves them from the cached archive. Prints the root's path.
# Cached: debootstrap runs once; the downloads again only when PACKAGES change.
#
#   Tests/Peers/vm/fetch-debian-root.sh PACKAGE...
#   PEERS_CACHE=dir (default <checkout>/.build/peers); DEBIAN_MIRROR (default deb.debian.org)
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${PEERS_CACHE:-$root/.build/peers}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fail() { echo "fetch-debian-root: $*" >&2; exit 1; }

packages=("$@")
target="$cache/debian-root"
wanted="${packages[*]}"
if [ -f "$target/.ready" ] && [ "$(cat "$target/.downloaded" 2> /dev/null)" = "$wanted" ]; then
    echo "$target/root"
    exit 0
fi
command -v debootstrap > /dev/null || fail "debootstrap not found (Tools/install-deps.sh test)"
[ "$(id -u)" = 0 ] || fail "debootstrap needs root"

if [ ! -f "$target/.ready" ]; then
    rm -rf "$target"
    mkdir -p "$target"
    echo "fetch-debian-root: debootstrap bookworm (minbase, systemd) from $mirror" >&2
    timeout 900 debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus \
        bookworm "$target/root" "$mirror" > "$target/debootstrap.log" 2>&1 ||
        { tail -n 20 "$target/debootstrap.log" >&2; fail "debootstrap failed (log: $target/debootstrap.log)"; }
    # debootstrap's own .debs: the guest needs only those of the dependencies below.
    rm -f "$target/root/var/cache/apt/archives/"*.deb
    echo "hcipico-deb-guest" > "$target/root/etc/hostname"
    echo 'Acquire::Retries "0";' > "$target/root/etc/apt/apt.conf.d/99offline"
    touch "$target/.ready"
fi

# The package lists, and the dependencies' .debs downloaded (not installed) into the root's own cache.
cp /etc/resolv.conf "$target/root/etc/resolv.conf"
echo "deb $mirror bookworm main" > "$target/root/etc/apt/sources.list"
mount -t proc proc "$target/root/proc"
trap 'umount "$target/root/proc" 2> /dev/null || true' EXIT
chroot "$target/root" apt-get update -qq > "$target/apt.log" 2>&1 ||
    { tail -n 20 "$target/apt.log" >&2; fail "apt-get update in the root failed"; }
if [ ${#packages[@]} -gt 0 ]; then
    chroot "$target/root" apt-get install -y -qq --download-only "${packages[@]}" >> "$target/apt.log" 2>&1 ||
        { tail -n 20 "$target/apt.log" >&2; fail "apt-get --download-only ${packages[*]} failed"; }
fi
umount "$target/root/proc"
trap - EXIT
# The guest has no network: no resolver.
: > "$target/root/etc/resolv.conf"
echo "$wanted" > "$target/.downloaded"
echo "$target/root"
