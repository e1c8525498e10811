#!/usr/bin/env bash
# Creates .venv/ in the checkout with the pinned Bumble the test peers in Tests/Peers/ use, the
# pinned numpy that Tests/Peers/export-check.sh loads exported files with, the pinned Selenium that
# drives Debian's chromium (chromium-driver) over the rig's status page, the pinned
# prometheus-client whose parser reads the rig's /metrics, and the analysis anchors (scipy for peaks,
# impedance.py for circuit fits) that Tests/Peers/analysis_anchor.py runs, and the pinned httpx that
# Tests/Peers/api_check.py drives the rig's API with, and the pinned openapi-spec-validator that checks
# the API's OpenAPI document there, and the pinned mcp (the Python MCP SDK) whose client drives
# `hcipico mcp` there.
# Idempotent: returns at once when the pinned versions are already installed. Fails loudly.
#
#   Tools/install-peers.sh            create or check .venv/
#   PYTHON=python3.11 Tools/install-peers.sh
set -euo pipefail

# package==version, each checked after the install.
pins=(
    bumble==0.0.236
    numpy==2.4.6
    selenium==4.51.0
    prometheus-client==0.26.0
    scipy==1.17.1
    impedance==1.7.1
    pandas==3.1.1 # impedance.py imports it without declaring it
    httpx==0.28.1
    openapi-spec-validator==0.9.0
    mcp==2.3.0
)
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
python=${PYTHON:-python3}

installed_version() {  # the version of package $1 in .venv, empty when it is not there
    "$venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null || true
}

all_installed() {  # every pin at its version in .venv
    [ -x "$venv/bin/python" ] || return 1
    for pin in "${pins[@]}"; do
        [ "$(installed_version "${pin%%==*}")" = "${pin#*==}" ] || return 1
    done
}

if all_installed; then
    exit 0
fi

command -v "$python" >/dev/null || { echo "install-peers: $python not found (apt-get install python3 python3-venv)" >&2; exit 1; }
if [ ! -x "$venv/bin/python" ]; then
    echo "install-peers: creating $venv"
    "$python" -m venv "$venv" || {
        echo "install-peers: '$python -m venv' failed (apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 1
    }
fi
echo "install-peers: installing ${pins[*]} from PyPI"
# --no-compile: the packages' bytecode is made when they are first imported, not for every module at once
# while `make test` builds beside this on the same two CPUs.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile "${pins[@]}" || {
    echo "install-peers: pip install ${pins[*]} failed" >&2
    exit 1
}
for pin in "${pins[@]}"; do
    got=$(installed_version "${pin%%==*}")
    [ "$got" = "${pin#*==}" ] || { echo "install-peers: ${pin%%==*} is '$got' after install, wanted ${pin#*==}" >&2; exit 1; }
done
echo "install-peers: ${pins[*]} ready in $venv"
