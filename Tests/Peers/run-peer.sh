#!/usr/bin/env bash
# Starts the Bumble test peer with the checkout's pinned Bumble (.venv/, created on demand by
# Tools/install-peers.sh). All arguments go to picopeer.py; see `run-peer.sh --help`.
# A test fixture runs this, waits for the `READY port=… peripherals=…` line on stdout, points
# its host at 127.0.0.1:<port>, and ends the peer with SIGTERM when done.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
"$root/Tools/install-peers.sh" >&2
exec "$root/.venv/bin/python" "$here/picopeer.py" "$@"
