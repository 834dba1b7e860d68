#!/usr/bin/env bash
# The README's run command: install, build, and run the main job — an
# ldp-server on its embedded SQLite store; ldp-loadtest creates an example
# study (a Zipf histogram and a mean) and runs 100,000 simulated agents (real
# agent sessions over gRPC on loopback), printing every estimate with its
# interval beside the truth; the ldp CLI then shows the analyst's view. The
# server is stopped at the end. Extra arguments go to ldp-loadtest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh --target ldp-server ldp-loadtest ldp
BUILD="${LDP_BUILD_DIR:-build}"
WORK="$(mktemp -d /tmp/ldp-demo.XXXXXX)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" && wait "$SERVER_PID" || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# No drain: nothing but this script talks to the server, and it stops last.
"$BUILD/server/ldp-server" --db="$WORK/ldp.db" --port=0 --port_file="$WORK/port" \
  --drain_seconds=0 > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
if [ ! -s "$WORK/port" ]; then
  echo "ldp-server did not start:" >&2; cat "$WORK/server.log" >&2; exit 1
fi
ADDRESS="127.0.0.1:$(cat "$WORK/port")"
TOKEN="$WORK/ldp.db.analyst_token"
echo "== ldp-server on $ADDRESS (database $WORK/ldp.db)"

echo "== ldp-loadtest: simulated agents (100,000 unless --agents says otherwise), each a real agent session"
"$BUILD/tools/ldp-loadtest" --server="$ADDRESS" --analyst_token_file="$TOKEN" \
  --agents=100000 --threads=32 --channels=4 --domain=64 "$@"

echo
echo "== The analyst's view of the same study: ldp study status 1; ldp results 1"
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" study status 1
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" results 1 --top=5
