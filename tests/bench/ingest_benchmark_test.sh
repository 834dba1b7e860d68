#!/usr/bin/env bash
# The ingest benchmark's yardsticks and its script, run as a user
# runs them (the real binaries, black box), at sizes that take seconds under
# ASan. Fails unless
#  1. session_sink_baseline runs every session in both modes and says so on
#     its key=value line (sessions, a positive rate, both sides' CPU; in
#     append mode the group commits), and append mode deletes its file;
#  2. it refuses --mode=append without --file, --file without append, an
#     unknown mode, --in_flight=0, and a --file that exists (which it must
#     not truncate), each with a message and exit 1;
#  3. ingest_sink_baseline (whose group commit session_sink_baseline
#     shares) still takes every report in append mode;
#  4. bench/ingest/run_ingest_benchmark.sh, on the real ldp-server and
#     ldp-loadtest, prints both tables: the bulk rows, and the sessions
#     rows of both session sinks and of ldp-server, with every agent's
#     report accepted (the script fails otherwise).
# Usage: ingest_benchmark_test.sh <build dir>
set -euo pipefail
build=$1
repo="$(cd "$(dirname "$0")/../.." && pwd)"
sessions="$build/bench/session_sink_baseline"
sink="$build/bench/ingest_sink_baseline"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# 1. Both modes run every session.
for mode in count append; do
  file=(); [ "$mode" = append ] && file=(--file="$dir/sessions.bin")
  if ! out="$("$sessions" --mode="$mode" "${file[@]}" --sessions=300 --in_flight=16 \
      --channels=2 2>"$dir/err")"; then
    fail "session_sink_baseline --mode=$mode exited non-zero: $(cat "$dir/err")"
    continue
  fi
  line="$(grep '^session_sink ' <<<"$out" || true)"
  [ "$(value mode "$line")" = "$mode" ] || fail "$mode: no key=value line: $out"
  [ "$(value sessions "$line")" = 300 ] || fail "$mode: sessions is not 300: $line"
  for key in sessions_per_second server_cpu_us client_cpu_us; do
    awk -v v="$(value "$key" "$line")" 'BEGIN { exit !(v > 0) }' ||
      fail "$mode: $key is not positive: $line"
  done
  if [ "$mode" = append ]; then
    awk -v v="$(value commits "$line")" 'BEGIN { exit !(v >= 1 && v <= 600) }' ||
      fail "append: commits not in 1..600 for 600 records: $line"
    [ ! -e "$dir/sessions.bin" ] || fail "append mode left its file behind"
  else
    [ -z "$(value commits "$line")" ] || fail "count mode reports commits: $line"
  fi
done

# 2. Bad flags are refused with a message.
refused() {  # refused WHAT EXPECTED_TEXT FLAGS...
  local what="$1" text="$2"
  shift 2
  if "$sessions" --sessions=10 "$@" >"$dir/out" 2>"$dir/err"; then
    fail "$what was accepted"
  elif ! grep -q -- "$text" "$dir/err"; then
    fail "$what: message lacks '$text': $(cat "$dir/err")"
  fi
}
refused "append without --file" "needed with --mode=append" --mode=append
refused "--file in count mode" "needed with --mode=append" --file="$dir/x.bin"
refused "an unknown mode" "must be 'count' or 'append'" --mode=fast
refused "--in_flight=0" "in_flight" --in_flight=0
echo keep > "$dir/exists.bin"
refused "an existing --file" "cannot create new file" --mode=append --file="$dir/exists.bin"
[ "$(cat "$dir/exists.bin")" = keep ] || fail "an existing --file was changed"

# 3. The bulk sink still appends every report.
if out="$("$sink" --mode=append --file="$dir/bulk.bin" --reports=5000 --batch=100 2>&1)"; then
  [ "$(value reports "$(grep '^sink ' <<<"$out")")" = 5000 ] || fail "bulk sink: $out"
else
  fail "ingest_sink_baseline --mode=append failed: $out"
fi

# 4. The whole script, small.
if REPORTS=4000 BATCH=100 PACED_REPORTS=2000 SESSION_AGENTS=200 SESSION_IN_FLIGHT=16 \
    DB_DIR="$dir" bash "$repo/bench/ingest/run_ingest_benchmark.sh" --no_build --build="$build" \
    >"$dir/table" 2>"$dir/log"; then
  for row in "sink count" "sink append+fdatasync" "ldp-server bulk (SQLite)" \
      "session sink count" "session sink append+fdatasync" "ldp-server sessions (SQLite)"; do
    grep -q "^$row  " "$dir/table" || fail "the table has no '$row' row: $(cat "$dir/table")"
  done
  grep -q "^sessions: 200 agents, .* 16 at a time" "$dir/table" ||
    fail "the sessions table does not say what it ran: $(cat "$dir/table")"
else
  fail "run_ingest_benchmark.sh failed: $(tail -n 30 "$dir/log")"
fi

[ "$status" -eq 0 ] && echo "PASS"
exit "$status"
