#!/usr/bin/env bash
# The rig's API with real clients (Tests/Peers/api_check.py does the checking): the pinned httpx and
# curl submit runs to a rig of two simulated Picos (one on a schedule, one on demand), follow them on
# the event stream (resumed from an event id), fetch their results; a retry with the same key is one
# run; the read token cannot control, no token is 401; bad bodies are 400/404/413 naming the field and
# change nothing; abort, pause and resume; SIGTERM with runs queued and kill -9 with runs queued, each
# checked in the journal; the status page in headless Chromium, read-only until given the control
# token, then running a method and pausing a schedule; `hcipico mcp` driven by the Python MCP client.
# The OpenAPI document (Specs/api/openapi.json) is validated, the answers are checked against its
# schemas, and every route in it must have been exercised.
#
#   Tests/Peers/api-check.sh [--bin PATH]    (default: the debug build's hcipico)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        *) echo "api-check: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$bin" ] || bin="$(cd "$root" && swift build --show-bin-path)/hcipico"
[ -x "$bin" ] || { echo "api-check: $bin not found (swift build --product hcipico)" >&2; exit 2; }
command -v curl >/dev/null || { echo "api-check: needs curl (apt-get install curl)" >&2; exit 2; }
"$root/Tools/install-peers.sh" >&2
free_port() { "$root/.venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
exec "$root/.venv/bin/python" "$here/api_check.py" --bin "$bin" --port "$(free_port)" --page-port "$(free_port)" \
    --spec "$root/Specs/api/openapi.json"
