#!/usr/bin/env bash
# Fails unless BINARY needs only the system's own shared libraries: nothing from a Swift toolchain
# (the standard library, Foundation, Dispatch, their ICU), nothing missing, and no search path into
# a toolchain. A build with --static-swift-stdlib passes; the default (dynamic) build does not.
set -euo pipefail
binary=${1:?usage: check-self-contained.sh BINARY}
libraries=$(ldd "$binary")
problems=$(printf '%s\n' "$libraries" | grep -E 'not found|libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/swift/|/usr/lib/swift' || true)
runpath=$(readelf -d "$binary" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
if [ -n "$runpath" ] && printf '%s' "$runpath" | grep -q swift; then
    problems+=$'\n'"search path into a toolchain: $runpath"
fi
if [ -n "$problems" ]; then
    echo "check-self-contained: $binary needs a Swift toolchain at run time:" >&2
    printf '%s\n' "$problems" | sed '/^$/d; s/^[[:space:]]*/  /' >&2
    exit 1
fi
count=$(printf '%s\n' "$libraries" | grep -c '=>' || true)
echo "check-self-contained: $binary needs only the system's shared libraries ($count, none from a Swift toolchain)"
