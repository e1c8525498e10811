#!/usr/bin/env bash
# The package tier of `make test`: builds the package from BINARY (a build linked with
# --static-swift-stdlib) twice, the second with a higher version, checks it with lintian, and installs,
# reloads, upgrades, stops, removes and purges it in a clean Debian 12 guest (Tests/Peers/deb-tier.sh).
#
#   Tests/Peers/deb-check.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:?usage: deb-check.sh BINARY}
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
version="$("$binary" --version)+git$(git rev-list --count HEAD 2> /dev/null || echo 0)"
export DEB_COMPRESS="-Zgzip -z1"
old=$(DEB_VERSION=$version Tools/deb/build-deb.sh "$binary" "$work")
new=$(DEB_VERSION=$version.1 Tools/deb/build-deb.sh "$binary" "$work")
Tools/deb/lintian-check.sh "$new" > /dev/null
Tests/Peers/deb-tier.sh "$old" "$new" --timeout 420
