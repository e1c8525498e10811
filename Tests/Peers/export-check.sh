#!/usr/bin/env bash
# `hcipico export` files load with numpy: a rig of three simulated Picos (Examples/rig.toml: CV, CA,
# EIS) records for 8 s into a fresh journal, `hcipico export` writes every run, and export_check.py
# loads each per-point CSV and PSTrace CSV with numpy (the pinned one of Tools/install-peers.sh),
# failing on a non-numeric column, a float artefact, a missing file, or a run with packages but no
# rows; then `hcipico connect sim --fast --out DIR` writes every built-in technique and the same checks
# run on those files.
# The folder is kept under .build/peers/runs/ when the check fails.
#
#   Tests/Peers/export-check.sh [--bin PATH]    (default: the debug build's hcipico)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        *) echo "export-check: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$bin" ] || bin="$(cd "$root" && swift build --show-bin-path)/hcipico"
[ -x "$bin" ] || { echo "export-check: $bin not found (swift build --product hcipico)" >&2; exit 2; }
"$root/Tools/install-peers.sh" >&2

cache=${PEERS_CACHE:-$root/.build/peers}
mkdir -p "$cache/runs"
work=$(mktemp -d "$cache/runs/export.XXXXXX")
"$bin" rig "$root/Examples/rig.toml" --journal "$work/rig.sqlite" --for 8s > "$work/rig.log" 2>&1 || {
    echo "export-check: hcipico rig failed ($work/rig.log)" >&2
    exit 1
}
mkdir "$work/export"
"$bin" export "$work/rig.sqlite" --out "$work/export" > "$work/export.log"
# The same files from `connect` itself, for every built-in technique.
mkdir "$work/connect"
for technique in cv lsv ca swv dpv eis; do
    "$bin" connect sim --fast --technique "$technique" --out "$work/connect" --quiet > "$work/connect.log" 2>&1 || {
        echo "export-check: hcipico connect --technique $technique failed ($work/connect.log)" >&2
        exit 1
    }
done
# Every script of Examples/ (the techniques above are built from them; CV_nscans has three scans).
"$bin" connect sim --fast --script "$root/Examples/CV_nscans.mscr" --out "$work/connect" --quiet > "$work/connect.log" 2>&1 || {
    echo "export-check: hcipico connect --script CV_nscans.mscr failed ($work/connect.log)" >&2
    exit 1
}
if "$root/.venv/bin/python" "$here/export_check.py" "$work/export" \
    && "$root/.venv/bin/python" "$here/export_check.py" "$work/connect"; then
    rm -rf "$work"
else
    echo "export-check: failed; files kept in $work" >&2
    exit 1
fi
