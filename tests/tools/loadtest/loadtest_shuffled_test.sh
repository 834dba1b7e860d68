#!/usr/bin/env bash
# ldp-loadtest --shuffler against a real ldp-server (TLS, trusting the
# shuffler's certificate) and a real ldp-shuffler delivering to it over
# mutual TLS, as a user runs them (black box). Fails unless
#  1. sessions (--threads=4, 300 agents) and bulk (1000 agents, Submit calls
#     of 200) each end with every sealed report acknowledged by the
#     shuffler, no error, the server counting at least what the shuffler
#     must have released (no "gave up"), and a shuffled guarantee line per
#     estimate with a central epsilon at most the target;
#  2. --shuffle_wait_seconds=0 ends after the submits, printing no estimate;
#  3. --shuffler with --in_flight, a plaintext shuffler off loopback, or a
#     --shuffle_min_batch below 100 is refused with a message naming the
#     flag at fault.
# Usage: loadtest_shuffled_test.sh <ldp-server> <ldp-shuffler> <ldp-loadtest>
#          <make_test_certs.sh>
set -euo pipefail
server=$1
shuffler=$2
loadtest=$3
make_certs=$4
dir=$(mktemp -d)
server_pid=
shuffler_pid=
cleanup() {
  for p in $shuffler_pid $server_pid; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

wait_for() {  # wait_for FILE PID LOG NAME
  for _ in $(seq 1 300); do
    [ -s "$1" ] && return
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  cat "$3"; echo "FAIL: $4 did not start"; exit 1
}

bash "$make_certs" "$dir/pki" > /dev/null
pki=$dir/pki
"$server" --db="$dir/ldp.db" --port=0 --port_file="$dir/port" --drain_seconds=0 \
  --relay_service --tls_cert_file="$pki/server.pem" --tls_key_file="$pki/server.key" \
  --tls_client_ca_file="$pki/ca.pem" --trusted_shufflers=ldp-shuffler \
  > "$dir/server.log" 2>&1 &
server_pid=$!
wait_for "$dir/port" "$server_pid" "$dir/server.log" ldp-server
"$shuffler" --data_dir="$dir/shuffler" --listen=127.0.0.1:0 --port_file="$dir/shuffler.port" \
  --server="127.0.0.1:$(cat "$dir/port")" --server_ca="$pki/ca.pem" \
  --client_cert="$pki/shuffler.pem" --client_key="$pki/shuffler.key" \
  --ticket_key_file="$dir/ldp.db.shuffle_keys.ticket_key" > "$dir/shuffler.log" 2>&1 &
shuffler_pid=$!
wait_for "$dir/shuffler.port" "$shuffler_pid" "$dir/shuffler.log" ldp-shuffler

# field FILE EXPR: a value of summary.json.
field() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
run() {  # run NAME [FLAGS...]: ldp-loadtest through the shuffler
  local name=$1; shift
  timeout 300 "$loadtest" --server="127.0.0.1:$(cat "$dir/port")" \
    --tls_ca_file="$pki/ca.pem" --analyst_token_file="$dir/ldp.db.analyst_token" \
    --shuffler="127.0.0.1:$(cat "$dir/shuffler.port")" --shuffle_min_batch=100 \
    --epsilon=1 --round_seconds=600 --progress=none --out="$dir/$name" "$@" \
    > "$dir/$name.out" 2>&1
}
check_run() {  # check_run NAME AGENTS
  local name=$1 agents=$2 out="$dir/$1.out"
  [ "$(field "$dir/$name/summary.json" 's["reports_accepted"]')" = "$agents" ] ||
    fail "$name: $(field "$dir/$name/summary.json" 's["reports_accepted"]') of $agents accepted"
  [ "$(field "$dir/$name/summary.json" 'len(s["errors"])')" = 0 ] ||
    fail "$name: errors $(field "$dir/$name/summary.json" 's["errors"]')"
  grep -q "submit throughput to the shuffler: " "$out" || fail "$name: no submit throughput line"
  grep -q "the server counts [0-9]* of the $agents reports" "$out" ||
    fail "$name: no server count line"
  if grep -q "gave up" "$out"; then fail "$name: gave up waiting for the batches"; fi
  [ "$(grep -c '^  shuffled: (' "$out")" = 2 ] || fail "$name: not one guarantee line per estimate"
  # The central epsilon of every line is at most the target, 1.
  awk '/^  shuffled: \(/ { sub(/^  shuffled: \(/, ""); split($0, a, ","); if (a[1] + 0 > 1) bad = 1 }
       END { exit bad }' "$out" || fail "$name: a central epsilon above the target"
}

if run sessions --agents=300 --threads=4; then
  check_run sessions 300
else
  fail "sessions exited non-zero"; tail -20 "$dir/sessions.out"
fi
if run bulk --agents=1000 --mode=bulk --streams=2 --batch=200; then
  check_run bulk 1000
else
  fail "bulk exited non-zero"; tail -20 "$dir/bulk.out"
fi
if run nowait --agents=100 --mode=bulk --shuffle_wait_seconds=0; then
  grep -q "Not waiting for the shuffler's batches" "$dir/nowait.out" ||
    fail "nowait: no 'Not waiting' line"
  if grep -q "^Estimates of study" "$dir/nowait.out"; then fail "nowait: printed estimates"; fi
else
  fail "nowait exited non-zero"; tail -20 "$dir/nowait.out"
fi

bad_run() {  # bad_run FLAG_NAMED FLAGS...: must fail naming FLAG_NAMED
  local named=$1; shift
  if "$loadtest" --server="127.0.0.1:$(cat "$dir/port")" --tls_ca_file="$pki/ca.pem" \
      --analyst_token_file="$dir/ldp.db.analyst_token" --agents=1 "$@" > "$dir/bad.out" 2>&1; then
    fail "$* was accepted"
  elif ! grep -q -- "$named" "$dir/bad.out"; then
    fail "$*: the message does not name $named: $(cat "$dir/bad.out")"
  fi
}
bad_run --in_flight --shuffler=127.0.0.1:1 --in_flight=4
bad_run --shuffler_ca_file --shuffler=192.0.2.1:50061
bad_run --shuffle_min_batch --shuffler=127.0.0.1:1 --shuffle_min_batch=50
exit $status
