#!/usr/bin/env bash
# Creates .venv/ in the checkout with the pinned Bumble the test peers in Tests/Peers/ use.
# Idempotent: returns at once when the pinned version is already installed. Fails loudly.
#
#   Tools/install-peers.sh            create or check .venv/
#   PYTHON=python3.11 Tools/install-peers.sh
set -euo pipefail

BUMBLE_VERSION=0.0.236
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
python=${PYTHON:-python3}

installed_version() {
    "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("bumble"))' 2>/dev/null || true
}

if [ -x "$venv/bin/python" ] && [ "$(installed_version)" = "$BUMBLE_VERSION" ]; then
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
echo "install-peers: installing bumble==$BUMBLE_VERSION from PyPI"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "bumble==$BUMBLE_VERSION" || {
    echo "install-peers: pip install bumble==$BUMBLE_VERSION failed" >&2
    exit 1
}
got=$(installed_version)
[ "$got" = "$BUMBLE_VERSION" ] || { echo "install-peers: bumble is '$got' after install, wanted $BUMBLE_VERSION" >&2; exit 1; }
echo "install-peers: bumble $got ready in $venv"
