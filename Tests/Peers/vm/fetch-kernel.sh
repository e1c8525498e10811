#!/usr/bin/env bash
# Downloads Debian's amd64 kernel package (never installs it on this machine), extracts it
# under the cache and prepares its module dependency index. Prints the extracted root's
# path. Cached: a second run only checks the stamp file.
#
#   Tests/Peers/vm/fetch-kernel.sh            -> <cache>/kernel/<version>/root
#   KERNEL_PACKAGE=linux-image-6.1.0-56-amd64 Tests/Peers/vm/fetch-kernel.sh
#   PEERS_CACHE=dir (default <checkout>/.build/peers)
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${PEERS_CACHE:-$root/.build/peers}
fail() { echo "fetch-kernel: $*" >&2; exit 1; }

package=${KERNEL_PACKAGE:-}
if [ -z "$package" ]; then
    # The metapackage names the current ABI's image package; prefer the unsigned one.
    package=$(apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9].*-amd64$/ {print $2; exit}') || true
    [ -n "$package" ] || fail "cannot resolve linux-image-amd64 (apt-get update? Debian sources?)"
fi
version=${package#linux-image-}
target="$cache/kernel/$version"
if [ -f "$target/.ready" ]; then
    echo "$target/root"
    exit 0
fi

for tool in dpkg-deb depmod modprobe; do
    command -v "$tool" >/dev/null || fail "$tool not found (apt-get install dpkg kmod)"
done
mkdir -p "$cache/debs"
deb=$(ls "$cache/debs/${package}_"*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
    echo "fetch-kernel: apt-get download $package" >&2
    (cd "$cache/debs" && timeout 600 apt-get download -q "$package" >&2) || fail "apt-get download $package failed"
    deb=$(ls "$cache/debs/${package}_"*.deb | head -n 1)
fi
rm -rf "$target"
mkdir -p "$target/root"
dpkg-deb -x "$deb" "$target/root" || fail "dpkg-deb -x $deb failed"
# The package ships the modules without their dependency index (its postinst runs depmod).
moddir="$target/root/lib/modules/$version"
[ -d "$moddir" ] || fail "$deb has no lib/modules/$version"
[ -f "$target/root/boot/vmlinuz-$version" ] || fail "$deb has no boot/vmlinuz-$version"
depmod -b "$target/root" "$version" || fail "depmod -b $target/root $version failed"
# Unpack the ELF kernel from the bzImage: qemu boots it through its PVH entry point
# (CONFIG_PVH=y), which skips the real-mode setup and the decompressor. Under TCG that
# saves 5-10 s per boot. When this fails, kernel-tier.sh boots the bzImage instead.
python3 - "$target/root/boot/vmlinuz-$version" "$target/vmlinux" <<'PY' ||
import lzma, sys, zlib
image = open(sys.argv[1], "rb").read()
for magic, unpack in ((b"\xfd7zXZ\x00", lambda d: lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(d)),
                      (b"\x1f\x8b\x08\x00", lambda d: zlib.decompressobj(31).decompress(d))):
    start = image.find(magic)
    while start >= 0:
        try:
            elf = unpack(image[start:])
        except (lzma.LZMAError, zlib.error):
            elf = b""
        if elf[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(elf)
            sys.exit(0)
        start = image.find(magic, start + 1)
sys.exit(1)
PY
    { echo "fetch-kernel: no ELF kernel inside the bzImage; booting the bzImage (slower)" >&2; rm -f "$target/vmlinux"; }
echo "$version" > "$target/.ready"
echo "$target/root"
