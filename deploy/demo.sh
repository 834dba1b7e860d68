#!/usr/bin/env bash
# The README's run command: install, build, and run the main job — an
# ldp-server on its embedded SQLite store; ldp-loadtest creates an example
# study (a Zipf histogram and a mean) and runs 100,000 simulated agents (real
# agent sessions over gRPC on loopback), printing every estimate with its
# interval beside the truth; the ldp CLI then shows the analyst's view.
# `ldp page` serves the live study page meanwhile (its address is printed;
# open it and give the analyst token). The server and the page are stopped
# at the end. Extra arguments go to ldp-loadtest.
#
# LDP_DEMO_SCREENSHOT=FILE.png: headless Chromium photographs the page 20 s
# into the load test (the README's picture, docs/study_page.png, is one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh --target ldp-server ldp-loadtest ldp
BUILD="${LDP_BUILD_DIR:-build}"
WORK="$(mktemp -d /tmp/ldp-demo.XXXXXX)"
SERVER_PID=""
PAGE_PID=""
SHOT_PID=""
stop() {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1" && wait "$1" || true; fi
}
cleanup() {
  stop "$SHOT_PID"
  stop "$PAGE_PID"
  stop "$SERVER_PID"
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

"$BUILD/tools/ldp" page --server="$ADDRESS" --token_file="$TOKEN" --page_port=0 \
  --page_port_file="$WORK/page.port" > "$WORK/page.log" 2>&1 &
PAGE_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/page.port" ] && break; sleep 0.1; done
if [ ! -s "$WORK/page.port" ]; then
  echo "ldp page did not start:" >&2; cat "$WORK/page.log" >&2; exit 1
fi
PAGE_URL="http://127.0.0.1:$(cat "$WORK/page.port")/"
echo "== live study page: $PAGE_URL (give it the analyst token in $TOKEN)"
if [ -n "${LDP_DEMO_SCREENSHOT:-}" ]; then
  SHOT="$(realpath -m "$LDP_DEMO_SCREENSHOT")"
  (sleep 20 && chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
     --no-first-run --user-data-dir="$WORK/chromium" --virtual-time-budget=5000 \
     --window-size=1000,1750 --hide-scrollbars --screenshot="$SHOT" \
     "$PAGE_URL#token=$(tr -d '[:space:]' < "$TOKEN")" > "$WORK/chromium.log" 2>&1 &&
   echo "== screenshot of the page: $SHOT") &
  SHOT_PID=$!
fi

echo "== ldp-loadtest: simulated agents (100,000 unless --agents says otherwise), each a real agent session"
"$BUILD/tools/ldp-loadtest" --server="$ADDRESS" --analyst_token_file="$TOKEN" \
  --agents=100000 --threads=32 --channels=4 --domain=64 "$@"

echo
echo "== The analyst's view of the same study: ldp study status 1; ldp results 1"
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" study status 1
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" results 1 --top=5
if [ -n "$SHOT_PID" ]; then wait "$SHOT_PID" || echo "the screenshot failed: $(tail -3 "$WORK/chromium.log")" >&2; fi
