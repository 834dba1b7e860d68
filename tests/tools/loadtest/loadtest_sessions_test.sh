#!/usr/bin/env bash
# ldp-loadtest's two session drivers against a real ldp-server, as a user
# runs them (black box). Fails unless
#  1. --in_flight=16 (gRPC callbacks) and --threads=4 (blocking workers)
#     each run 400 sessions to the end: 400 reports accepted, no error,
#     and the report line names the driver;
#  2. with a quota'd enrollment token (100 agents) --in_flight=8 ends (no
#     session is left hanging): 100 accepted and the other 300 counted as
#     enroll RESOURCE_EXHAUSTED in summary.json;
#  3. --in_flight below 0, or with --mode=bulk, is refused with a message.
# Usage: loadtest_sessions_test.sh <ldp-server> <ldp-loadtest>
set -euo pipefail
server=$1
loadtest=$2
dir=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

start_server() {  # start_server NAME [FLAGS...]
  local name=$1; shift
  rm -f "$dir/port"
  "$server" --db="$dir/$name.db" --port=0 --port_file="$dir/port" "$@" \
    > "$dir/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do [ -s "$dir/port" ] && return; sleep 0.1; done
  cat "$dir/$name.log"; echo "FAIL: ldp-server did not start"; exit 1
}
stop_server() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
# field FILE EXPR: a value of summary.json.
field() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
run() {  # run NAME DB [FLAGS...]: ldp-loadtest, its summary in $dir/NAME
  local name=$1 db=$2; shift 2
  timeout 300 "$loadtest" --server="127.0.0.1:$(cat "$dir/port")" \
    --analyst_token_file="$dir/$db.db.analyst_token" --progress=none \
    --out="$dir/$name" "$@" > "$dir/$name.out" 2>&1
}

start_server open
for driver in "--in_flight=16" "--threads=4"; do
  name="open${driver//[-=]/_}"
  if ! run "$name" open --agents=400 "$driver"; then
    fail "$driver exited non-zero"; tail -20 "$dir/$name.out"; continue
  fi
  [ "$(field "$dir/$name/summary.json" 's["reports_accepted"]')" = 400 ] ||
    fail "$driver: $(field "$dir/$name/summary.json" 's["reports_accepted"]') of 400 accepted"
  [ "$(field "$dir/$name/summary.json" 'len(s["errors"])')" = 0 ] ||
    fail "$driver: errors $(field "$dir/$name/summary.json" 's["errors"]')"
  want="4 threads"; [ "$driver" = "--in_flight=16" ] && want="16 in flight on gRPC callbacks"
  grep -q "Sessions: 400 agents in .*($want" "$dir/$name.out" ||
    fail "$driver: no 'Sessions: 400 agents ... ($want' line"
done
stop_server

echo "quota-token-0123456789 100" > "$dir/tokens"
start_server quota --enrollment_tokens_file="$dir/tokens"
if ! run quota quota --agents=400 --in_flight=8 \
    --enrollment_token=quota-token-0123456789; then
  : # the run may report the failed sessions with a non-zero exit
fi
if [ ! -s "$dir/quota/summary.json" ]; then
  fail "quota run wrote no summary"; tail -20 "$dir/quota.out"
else
  [ "$(field "$dir/quota/summary.json" 's["reports_accepted"]')" = 100 ] ||
    fail "quota: $(field "$dir/quota/summary.json" 's["reports_accepted"]') accepted, want 100"
  [ "$(field "$dir/quota/summary.json" 's["errors"].get("enroll RESOURCE_EXHAUSTED", 0)')" = 300 ] ||
    fail "quota: errors $(field "$dir/quota/summary.json" 's["errors"]'), want 300 enroll RESOURCE_EXHAUSTED"
fi
stop_server

for bad in "--in_flight=-1" "--mode=bulk --in_flight=4"; do
  # shellcheck disable=SC2086  # two flags
  if "$loadtest" --server=127.0.0.1:1 --analyst_token_file="$dir/tokens" \
      $bad > "$dir/bad.out" 2>&1; then
    fail "$bad was accepted"
  elif ! grep -q -- "--in_flight" "$dir/bad.out"; then
    fail "$bad: the message does not name --in_flight: $(cat "$dir/bad.out")"
  fi
done
exit $status
