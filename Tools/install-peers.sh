#!/usr/bin/env bash
# Creates .venv/ in the checkout with the pinned Bumble the test peers in Tests/Peers/ use, the
# pinned numpy that Tests/Peers/export-check.sh loads exported files with, the pinned Selenium that
# drives Debian's chromium (chromium-driver) over the rig's status page, and the pinned
# prometheus-client whose parser reads the rig's /metrics.
# Idempotent: returns at once when the pinned versions are already installed. Fails loudly.
#
#   Tools/install-peers.sh            create or check .venv/
#   PYTHON=python3.11 Tools/install-peers.sh
set -euo pipefail

BUMBLE_VERSION=0.0.236
NUMPY_VERSION=2.4.6
SELENIUM_VERSION=4.51.0
PROMETHEUS_CLIENT_VERSION=0.26.0
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
python=${PYTHON:-python3}

installed_version() {  # the version of package $1 in .venv, empty when it is not there
    "$venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null || true
}

if [ -x "$venv/bin/python" ] && [ "$(installed_version bumble)" = "$BUMBLE_VERSION" ] \
    && [ "$(installed_version numpy)" = "$NUMPY_VERSION" ] \
    && [ "$(installed_version selenium)" = "$SELENIUM_VERSION" ] \
    && [ "$(installed_version prometheus-client)" = "$PROMETHEUS_CLIENT_VERSION" ]; then
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
pins=("bumble==$BUMBLE_VERSION" "numpy==$NUMPY_VERSION" "selenium==$SELENIUM_VERSION"
    "prometheus-client==$PROMETHEUS_CLIENT_VERSION")
echo "install-peers: installing ${pins[*]} from PyPI"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" || {
    echo "install-peers: pip install ${pins[*]} failed" >&2
    exit 1
}
for pin in "bumble $BUMBLE_VERSION" "numpy $NUMPY_VERSION" "selenium $SELENIUM_VERSION" \
    "prometheus-client $PROMETHEUS_CLIENT_VERSION"; do
    set -- $pin
    got=$(installed_version "$1")
    [ "$got" = "$2" ] || { echo "install-peers: $1 is '$got' after install, wanted $2" >&2; exit 1; }
done
echo "install-peers: bumble $BUMBLE_VERSION, numpy $NUMPY_VERSION, selenium $SELENIUM_VERSION and" \
    "prometheus-client $PROMETHEUS_CLIENT_VERSION ready in $venv"
