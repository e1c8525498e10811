#!/usr/bin/env bash
# Installs the Debian packages hcipico's build and tests need, only those that are missing.
# Runs `apt-get update` once before the first install. Fails loudly when it cannot install.
#
#   Tools/install-deps.sh build      what `swift build` needs (libbluetooth, SQLite and libsystemd headers, pkg-config)
#   Tools/install-deps.sh test       the above plus what every test tier needs
#   Tools/install-deps.sh deb        the build set plus what `make deb` needs to make and check the package
set -euo pipefail

# curl is the status server tests' HTTP client (Tests/RigFleetTests/CurlHTTP.swift, in make unit).
build_packages=(libbluetooth-dev libsqlite3-dev libsystemd-dev libedit-dev pkg-config curl)
# Test peers (Tests/Peers/): qemu + busybox + bluez's btattach/hciconfig + kmod (modprobe,
# depmod) + cpio build and boot the kernel-tier guest, which also runs bluez's bluetoothd and
# bluetoothctl on dbus-daemon's system bus; gcc/libc6-dev build att_rtt;
# python3-venv holds the pinned Bumble (Tools/install-peers.sh). Debian's kernel is fetched
# with `apt-get download` and unpacked under .build/peers/, never installed.
# postgresql (server + client) runs the throwaway clusters of Tools/pg-cluster.sh for the forwarder's
# tests; chromium + chromium-driver load the rig's status page under the pinned Selenium; debootstrap
# makes the package tier's clean Debian root, and the deb set below builds and checks the package;
# curl is also one of the API's clients (Tests/Peers/api-check.sh).
test_packages=(qemu-system-x86 busybox-static bluez dbus-daemon kmod cpio gcc libc6-dev python3-venv
    postgresql chromium chromium-driver debootstrap)

# make deb: dpkg-shlibdeps (dpkg-dev), fakeroot, strip (binutils) and lintian.
deb_packages=(dpkg-dev fakeroot binutils lintian)

case "${1:-build}" in
    build) wanted=("${build_packages[@]}") ;;
    test) wanted=("${build_packages[@]}" "${test_packages[@]}" "${deb_packages[@]}") ;;
    deb) wanted=("${build_packages[@]}" "${deb_packages[@]}") ;;
    *) echo "install-deps: unknown set '$1' (build, test or deb)" >&2; exit 64 ;;
esac

missing=()
for package in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "install-deps: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "install-deps: apt-get install ${missing[*]} failed" >&2; exit 1; }
