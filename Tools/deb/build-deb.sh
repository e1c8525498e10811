#!/usr/bin/env bash
# Builds hcipico_VERSION_ARCH.deb from a built hcipico binary (make deb builds the binary first).
#
#   Tools/deb/build-deb.sh BINARY OUTDIR
#
# The binary must be self-contained (Tools/deb/check-self-contained.sh); the package holds it, the
# systemd unit, /etc/hcipico/rig.toml as a conffile, the example scripts, shell completions and a man
# page made from the binary's own help, and depends on the Debian packages of the libraries it links
# (found with dpkg-shlibdeps). VERSION is the binary's --version plus +gitN (N: the commits to HEAD,
# so that each later build is an upgrade); DEB_VERSION overrides it. DEB_MAINTAINER names who builds
# it; DEB_COMPRESS is dpkg-deb's compression (default -Zxz; the package tier uses "-Zgzip -z1").
# Prints the package's path.
set -euo pipefail
cd "$(dirname "$0")/../.."

binary=${1:?usage: build-deb.sh BINARY OUTDIR}
outdir=${2:?usage: build-deb.sh BINARY OUTDIR}
for tool in dpkg-deb dpkg-shlibdeps fakeroot strip gzip python3; do
    command -v "$tool" > /dev/null || { echo "build-deb: $tool is missing (Tools/install-deps.sh deb installs it)" >&2; exit 1; }
done

Tools/deb/check-self-contained.sh "$binary" >&2

upstream=$("$binary" --version)
if [ -z "${DEB_VERSION:-}" ]; then
    commits=$(git rev-list --count HEAD 2> /dev/null || echo 0)
    DEB_VERSION="$upstream+git$commits"
fi
arch=$(dpkg --print-architecture)
# Who builds the package (the Maintainer field and the changelog's signature): DEB_MAINTAINER.
maintainer=${DEB_MAINTAINER:-hcipico maintainers <hcipico@example.org>}
date_rfc=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || date +%s)}")
day=$(date -u -d "$date_rfc" +%Y-%m-%d)

work=$(mktemp -d "${TMPDIR:-/tmp}/hcipico-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
doc=$root/usr/share/doc/hcipico
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/hcipico" "$doc" \
    "$root/usr/share/hcipico/examples" "$root/usr/share/man/man1" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"

# The binary, stripped as dh_strip strips (its dynamic symbols stay, for backtraces of exported names).
install -m 0755 "$binary" "$root/usr/bin/hcipico"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/hcipico"

# The unit: the one in Tools/systemd, running the packaged binary.
sed -e 's|/usr/local/bin/hcipico|/usr/bin/hcipico|g' \
    -e '/^# hcipico rig as a system service. Install/,/^# The journal and the bonds/{/^# The journal and the bonds/!d}' \
    Tools/systemd/hcipico-rig.service > "$root/lib/systemd/system/hcipico-rig.service"
sed -i '1i # hcipico rig as a system service (the hcipico package enables and starts it; edit /etc/hcipico/rig.toml).' \
    "$root/lib/systemd/system/hcipico-rig.service"
chmod 0644 "$root/lib/systemd/system/hcipico-rig.service"

install -m 0644 Tools/deb/rig.toml "$root/etc/hcipico/rig.toml"
install -m 0644 Examples/*.mscr Examples/rig.toml "$root/usr/share/hcipico/examples/"
install -d "$root/usr/share/hcipico/examples/methods"
install -m 0644 Examples/methods/*.toml "$root/usr/share/hcipico/examples/methods/"

# Completions and the man page, from the binary itself.
# (bash-completion sources the file: no #! line.)
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/hcipico"
"$binary" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_hcipico"
"$binary" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/hcipico.fish"
"$binary" --experimental-dump-help | Tools/deb/manpage.py "$upstream" "$day" | gzip -9n > "$root/usr/share/man/man1/hcipico.1.gz"

install -m 0644 Tools/deb/copyright "$doc/copyright"
gzip -9nc README.md > "$doc/README.md.gz"
install -m 0644 Documentation/ExitStatus.md "$doc/ExitStatus.md"
printf 'hcipico (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
    "$DEB_VERSION" "$(git rev-parse --short HEAD 2> /dev/null || echo 'a source tree')" "$maintainer" "$date_rfc" |
    gzip -9n > "$doc/changelog.gz"
chmod 0644 "$root"/usr/share/*/completions/hcipico "$root"/usr/share/zsh/vendor-completions/_hcipico \
    "$root"/usr/share/fish/vendor_completions.d/hcipico.fish

# The shared libraries the binary links, as Debian package dependencies.
mkdir -p "$work/src/debian"
printf 'Source: hcipico\n\nPackage: hcipico\nArchitecture: any\n' > "$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/hcipico" 2> /dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" << EOF
Package: hcipico
Version: $DEB_VERSION
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Suggests: bluez
Section: science
Priority: optional
Description: EmStat Pico potentiostats and BLE serial devices, on a rig
 hcipico drives PalmSens EmStat Pico potentiostats and other Bluetooth LE
 serial devices (HM-10 modules, ESP32 peripherals) through the kernel's raw
 HCI and L2CAP sockets or its own HCI host, without BlueZ's D-Bus daemon.
 .
 The hcipico-rig service runs devices on schedules into a crash-safe
 SQLite journal, with PostgreSQL forwarding, Prometheus metrics and a
 status page.
EOF
echo /etc/hcipico/rig.toml > "$root/DEBIAN/conffiles"
install -m 0755 Tools/deb/postinst Tools/deb/prerm Tools/deb/postrm "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"

mkdir -p "$outdir"
package="$outdir/hcipico_${DEB_VERSION}_${arch}.deb"
# shellcheck disable=SC2086 # DEB_COMPRESS is a list of options
fakeroot dpkg-deb ${DEB_COMPRESS:--Zxz} --build "$root" "$package" > /dev/null
echo "$package"
