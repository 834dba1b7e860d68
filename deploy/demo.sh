#!/usr/bin/env bash
# The README's run command: install, build, and run the main job — an
# ldp-server on its embedded SQLite store; ldp-loadtest creates an example
# study (a Zipf histogram and a mean) and runs 100,000 simulated agents (real
# agent sessions over gRPC on loopback), printing every estimate with its
# interval beside the truth; the ldp CLI then shows the analyst's view.
# `ldp page` serves the live study page meanwhile (its address is printed;
# open it and give the analyst token). Then the same population (100,000
# agents, 64 items, the same central epsilon) answers a shuffled study on a
# second server: each agent seals its report to that server's key and hands
# it to an ldp-shuffler, which releases batches of >= 10,000 without
# senders to the server over mutual TLS (test certificates from
# make_test_certs.sh); the local and the shuffled errors are printed side by
# side. Everything is stopped at the end. Extra arguments go to the first
# (local) ldp-loadtest only.
#
# LDP_DEMO_SCREENSHOT=FILE.png: headless Chromium photographs the page 20 s
# into the load test (the README's picture, docs/study_page.png, is one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh --target ldp-server ldp-shuffler ldp-loadtest ldp
BUILD="${LDP_BUILD_DIR:-build}"
WORK="$(mktemp -d /tmp/ldp-demo.XXXXXX)"
SERVER_PID=""
SHUFFLED_SERVER_PID=""
SHUFFLER_PID=""
PAGE_PID=""
SHOT_PID=""
stop() {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1" && wait "$1" || true; fi
}
cleanup() {
  stop "$SHOT_PID"
  stop "$PAGE_PID"
  stop "$SHUFFLER_PID"
  stop "$SHUFFLED_SERVER_PID"
  stop "$SERVER_PID"
  rm -rf "$WORK"
}
trap cleanup EXIT

# wait_port FILE NAME LOG: until the program has written its port.
wait_port() {
  for _ in $(seq 1 100); do [ -s "$1" ] && return; sleep 0.1; done
  echo "$2 did not start:" >&2; cat "$3" >&2; exit 1
}

# No drain: nothing but this script talks to the server, and it stops last.
"$BUILD/server/ldp-server" --db="$WORK/ldp.db" --port=0 --port_file="$WORK/port" \
  --drain_seconds=0 > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_port "$WORK/port" ldp-server "$WORK/server.log"
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
# Line-buffered through tee: the comparison at the end reads its tables.
stdbuf -oL "$BUILD/tools/ldp-loadtest" --server="$ADDRESS" --analyst_token_file="$TOKEN" \
  --agents=100000 --threads=32 --channels=4 --domain=64 "$@" | tee "$WORK/local.out"

echo
echo "== The analyst's view of the same study: ldp study status 1; ldp results 1"
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" study status 1
"$BUILD/tools/ldp" --server="$ADDRESS" --token_file="$TOKEN" results 1 --top=5
if [ -n "$SHOT_PID" ]; then wait "$SHOT_PID" || echo "the screenshot failed: $(tail -3 "$WORK/chromium.log")" >&2; fi

# The shuffled part, on a server of its own: it must run TLS so that it can
# tell the shuffler (whose client certificate names ldp-shuffler) from
# anyone else, and the page above stays on the plaintext one. The shuffler
# is another operator's in a deployment; agents reach it in plaintext on
# loopback here, and it checks their tickets with the server's public key.
PKI="$WORK/pki"
bash deploy/make_test_certs.sh "$PKI" > /dev/null
"$BUILD/server/ldp-server" --db="$WORK/shuffled.db" --port=0 --port_file="$WORK/shuffled.port" \
  --drain_seconds=0 --relay_service --tls_cert_file="$PKI/server.pem" \
  --tls_key_file="$PKI/server.key" --tls_client_ca_file="$PKI/ca.pem" \
  --trusted_shufflers=ldp-shuffler > "$WORK/shuffled.log" 2>&1 &
SHUFFLED_SERVER_PID=$!
wait_port "$WORK/shuffled.port" "the second ldp-server" "$WORK/shuffled.log"
SHUFFLED_ADDRESS="localhost:$(cat "$WORK/shuffled.port")"
"$BUILD/server/ldp-shuffler" --data_dir="$WORK/shuffler" --listen=127.0.0.1:0 \
  --port_file="$WORK/shuffler.port" --server="$SHUFFLED_ADDRESS" --server_ca="$PKI/ca.pem" \
  --client_cert="$PKI/shuffler.pem" --client_key="$PKI/shuffler.key" \
  --ticket_key_file="$WORK/shuffled.db.shuffle_keys.ticket_key" > "$WORK/shuffler.log" 2>&1 &
SHUFFLER_PID=$!
wait_port "$WORK/shuffler.port" ldp-shuffler "$WORK/shuffler.log"
# The local run's epsilon (1 unless the arguments said otherwise) is the
# shuffled study's central target.
EPSILON="$(sed -n 's/^Created study .*, epsilon \([0-9.e+-]*\)$/\1/p' "$WORK/local.out")"
echo
echo "== Shuffled: the same 100,000 agents on a second ldp-server ($SHUFFLED_ADDRESS, TLS) through ldp-shuffler (127.0.0.1:$(cat "$WORK/shuffler.port")), central epsilon $EPSILON, batches of >= 10,000"
stdbuf -oL "$BUILD/tools/ldp-loadtest" --server="$SHUFFLED_ADDRESS" --tls_ca_file="$PKI/ca.pem" \
  --analyst_token_file="$WORK/shuffled.db.analyst_token" --agents=100000 --domain=64 \
  --mode=bulk --shuffler="127.0.0.1:$(cat "$WORK/shuffler.port")" --shuffle_min_batch=10000 \
  --epsilon="$EPSILON" | tee "$WORK/shuffled.out"

# mean_abs_error FILE: the mean |estimate - truth| over the histogram rows
# the load test printed (its top items).
mean_abs_error() {
  awk '/^item_histogram:/ { on = 1; next } on && /^  item=/ { d = $3 - $2; s += d < 0 ? -d : d; n++ }
       on && !/^  item/ { on = n ? 0 : on } END { if (n) printf "%.5f over the top %d items", s / n, n }' "$1"
}
echo
echo "== Local vs shuffled: the same population, the same central epsilon"
echo "  local:    each report $EPSILON-LDP, and so is what the server learns; mean |estimate - truth| $(mean_abs_error "$WORK/local.out")"
echo "  shuffled: $(grep -m1 '^  shuffled: (' "$WORK/shuffled.out" | sed 's/^  shuffled: //'); mean |estimate - truth| $(mean_abs_error "$WORK/shuffled.out")"
