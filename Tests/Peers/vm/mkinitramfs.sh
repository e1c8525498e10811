#!/usr/bin/env bash
# Builds an uncompressed initramfs for the kernel tier from this machine's Debian packages:
# busybox-static, bluez's btattach and hciconfig (+ the libraries ldd lists), the Debian
# kernel's bluetooth + hci_uart modules and their dependencies, our /init, and the test
# binaries given with every library ldd lists, copied to the same absolute paths.
#
#   mkinitramfs.sh --kernel-root DIR --out FILE [--bin FILE]... [--run SCRIPT] [--file SRC:DEST]...
#
#   --bin FILE       an executable, installed as /test/bin/<name> (on PATH in the guest)
#   --run SCRIPT     shell script run by /init as the test (default: /test/bin/* in turn)
#   --file SRC:DEST  any extra file, at DEST in the guest
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "mkinitramfs: $*" >&2; exit 1; }

kernel_root=""
out=""
run_script=""
bins=()
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel-root) kernel_root=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --bin) bins+=("$2"); shift 2 ;;
        --run) run_script=$2; shift 2 ;;
        --file) files+=("$2"); shift 2 ;;
        *) fail "unknown argument '$1'" ;;
    esac
done
[ -n "$kernel_root" ] && [ -n "$out" ] || fail "--kernel-root and --out are required"
version=$(ls "$kernel_root/lib/modules" | head -n 1)
[ -n "$version" ] || fail "no kernel modules under $kernel_root/lib/modules"
for tool in cpio ldd modprobe; do command -v "$tool" >/dev/null || fail "$tool not found"; done

busybox=""
for candidate in /bin/busybox /usr/bin/busybox; do
    if [ -x "$candidate" ] && ! ldd "$candidate" >/dev/null 2>&1; then busybox=$candidate; break; fi
done
[ -n "$busybox" ] || fail "no static busybox (apt-get install busybox-static)"
btattach=$(command -v btattach || true)
hciconfig=$(command -v hciconfig || true)
[ -n "$btattach" ] && [ -n "$hciconfig" ] || fail "btattach/hciconfig not found (apt-get install bluez)"

staging=$(mktemp -d "${TMPDIR:-/tmp}/hcipico-initramfs.XXXXXX")
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"/{bin,sbin,proc,sys,dev,tmp,etc,mods,test/bin,usr/bin}

copy_with_libs() {  # copy_with_libs SRC DEST: the file plus every library ldd lists, same paths
    install -D -m 0755 "$1" "$staging$2"
    local lib
    for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ )]*' || true); do
        [ -e "$staging$lib" ] && continue
        mkdir -p "$staging$(dirname "$lib")"
        cp -L "$lib" "$staging$lib"
    done
}

cp "$busybox" "$staging/bin/busybox"
ln -s busybox "$staging/bin/sh"  # /init is a shell script; busybox --install adds the rest
copy_with_libs "$btattach" /usr/bin/btattach
copy_with_libs "$hciconfig" /usr/bin/hciconfig
# btmgmt powers the adapter through the management interface, which is what registers the kernel's
# Security Manager (the security case needs it; hciconfig's HCIDEVUP alone leaves it out).
btmgmt=$(command -v btmgmt || true)
[ -n "$btmgmt" ] && copy_with_libs "$btmgmt" /usr/bin/btmgmt

# Modules in dependency order, as modprobe would load them: hci_uart and what it needs, and cmac, which
# the kernel's Security Manager asks for when the adapter powers on (without it LE pairing is "not
# available"); the guest has no modprobe to fetch it on demand.
for wanted in hci_uart cmac; do
    modprobe -d "$kernel_root" -S "$version" --show-depends "$wanted"
done | awk '$1 == "insmod" && !seen[$2]++ {print $2}' > "$staging/mods/paths"
[ -s "$staging/mods/paths" ] || fail "modprobe found no hci_uart module for $version"
: > "$staging/mods/order"
while read -r module; do
    name=$(basename "$module")
    case "$name" in
        *.ko) cp "$module" "$staging/mods/$name" ;;
        *.ko.xz) name=${name%.xz}; xz -dc "$module" > "$staging/mods/$name" ;;
        *.ko.zst) name=${name%.zst}; zstd -qdc "$module" > "$staging/mods/$name" ;;
        *) fail "unexpected module file $module" ;;
    esac
    echo "$name" >> "$staging/mods/order"
done < "$staging/mods/paths"
rm "$staging/mods/paths"

for bin in "${bins[@]}"; do
    [ -x "$bin" ] || fail "--bin $bin is not an executable file"
    copy_with_libs "$(readlink -f "$bin")" "/test/bin/$(basename "$bin")"
    # Debug builds carry their DWARF: without it the initramfs is a third smaller (less guest memory).
    strip --strip-debug "$staging/test/bin/$(basename "$bin")"
done
for spec in "${files[@]}"; do
    install -D -m 0644 "${spec%%:*}" "$staging${spec#*:}"
done
if [ -n "$run_script" ]; then
    install -m 0755 "$run_script" "$staging/test/run.sh"
fi
install -m 0755 "$here/init" "$staging/init"
echo "127.0.0.1 localhost" > "$staging/etc/hosts"
echo "root:x:0:0:root:/tmp:/bin/sh" > "$staging/etc/passwd"

mkdir -p "$(dirname "$out")"
(cd "$staging" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
