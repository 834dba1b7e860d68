#!/usr/bin/env bash
# Does a watched study page slow ingest? The page must add nothing to the
# server's hot path. RUNS bulk load tests of REPORTS reports each
# (ldp-loadtest --mode=bulk, as bench/ingest/run_ingest_benchmark.sh drives it),
# each on a fresh ldp-server --relay_service and SQLite database, without
# and with `ldp page` polling the server every PAGE_REFRESH seconds (0.5,
# four times the default) and a client fetching the page's fragment as
# often. The arms go off, on, on, off, off, on, ... so that a drift of the
# machine over the run falls on both alike. Prints reports/s per run and
# the mean of each arm.
#
# Usage: bench/studies/run_page_side_by_side.sh   (env: REPORTS=1000000 RUNS=8
#        PAGE_REFRESH=0.5 BUILD=build; builds nothing: build ldp-server,
#        ldp-loadtest and ldp first)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPORTS="${REPORTS:-1000000}"
RUNS="${RUNS:-8}"
PAGE_REFRESH="${PAGE_REFRESH:-0.5}"
BUILD="${BUILD:-build}"
WORK="$(mktemp -d "$BUILD/page-side-by-side.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

wait_for() {  # wait_for FILE PID
  for _ in $(seq 1 300); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "$1 never appeared" >&2; exit 1
}

start_server() {  # start_server DIR: sets SERVER_PID, ADDRESS, TOKEN_FILE
  mkdir -p "$1"
  "$BUILD/server/ldp-server" --db="$1/ldp.db" --port=0 --port_file="$1/port" \
    --relay_service --drain_seconds=0 > "$1/server.log" 2>&1 &
  SERVER_PID=$!; PIDS+=("$SERVER_PID")
  wait_for "$1/port" "$SERVER_PID"
  ADDRESS="127.0.0.1:$(cat "$1/port")"
  TOKEN_FILE="$1/ldp.db.analyst_token"
}

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "commit: $(git rev-parse --short HEAD); $REPORTS reports per run; page refresh ${PAGE_REFRESH} s"
printf "%-4s %-6s %14s\n" run page reports/s
declare -A SUM=([off]=0 [on]=0)
for run in $(seq 1 "$RUNS"); do
  arm=$(case $((run % 4)) in 1|0) echo off ;; *) echo on ;; esac)
  start_server "$WORK/server$run"
  PAGE_PID=""; FETCH_PID=""
  if [ "$arm" = on ]; then
    rm -f "$WORK/page.port"
    "$BUILD/tools/ldp" page --server="$ADDRESS" --token_file="$TOKEN_FILE" \
      --page_port=0 --page_port_file="$WORK/page.port" \
      --refresh_seconds="$PAGE_REFRESH" > "$WORK/page.log" 2>&1 &
    PAGE_PID=$!; PIDS+=("$PAGE_PID")
    wait_for "$WORK/page.port" "$PAGE_PID"
    # A browser's worth of fetches, as often as the page polls.
    (while true; do
       curl -s -o /dev/null -H "Authorization: Bearer $(tr -d '[:space:]' < "$TOKEN_FILE")" \
         "http://127.0.0.1:$(cat "$WORK/page.port")/api/fragment" || true
       sleep "$PAGE_REFRESH"
     done) &
    FETCH_PID=$!; PIDS+=("$FETCH_PID")
  fi
  "$BUILD/tools/ldp-loadtest" --server="$ADDRESS" --analyst_token_file="$TOKEN_FILE" \
    --mode=bulk --agents="$REPORTS" --streams=4 --batch=1000 \
    --out="$WORK/run$run" --progress=none > "$WORK/run$run.log" 2>&1
  rps="$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["reports_per_second"]))' "$WORK/run$run/summary.json")"
  [ -n "$FETCH_PID" ] && { kill "$FETCH_PID"; wait "$FETCH_PID" 2>/dev/null || true; }
  [ -n "$PAGE_PID" ] && { kill "$PAGE_PID"; wait "$PAGE_PID" 2>/dev/null || true; }
  kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK/server$run"
  printf "%-4s %-6s %14s\n" "$run" "$arm" "$rps"
  SUM[$arm]=$((SUM[$arm] + rps))
done
half=$((RUNS / 2))  # RUNS is a multiple of 4
echo "mean without the page: $((SUM[off] / half)) reports/s; with it: $((SUM[on] / half)) reports/s"
