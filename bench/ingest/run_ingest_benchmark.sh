#!/usr/bin/env bash
# Ingest benchmark (bench/reports/INGEST.md): ldp-server's bulk ingest beside two
# baselines measured in the same run on the same machine, so its throughput
# reads as a fraction of what gRPC alone and gRPC plus the disk allow:
#   1. ingest_sink_baseline --mode=count   bare gRPC sink, counts and acks
#   2. ingest_sink_baseline --mode=append  the same, plus append + group-
#                                          commit fdatasync before each ack
#   3. ldp-server --relay_service on its embedded SQLite store, driven by
#      ldp-loadtest --mode=bulk with REPORTS/REPORTS_PER_AGENT agents (its
#      default study splits the agents between its 2 questions, so each
#      agent sends 1 report; the run fails unless exactly REPORTS arrive)
# then a second, paced run on the same server at PACED_FRACTION (0.8) of the
# peak rate (ldp-loadtest --rate; PACED_REPORTS reports) for the latency
# below saturation, then a third study on the same server in sessions mode
# (SESSION_AGENTS agents, default 50,000, 0 skips it: each agent enrolls,
# polls and uploads on its own AgentService calls, SESSION_IN_FLIGHT 256
# sessions at a time on gRPC's callback API, or with SESSION_IN_FLIGHT=0
# SESSION_THREADS 64 blocking threads, over SESSION_CHANNELS 4
# connections), then the same sessions on the bare session sink
# (session_sink_baseline --mode=count, and --mode=append: an enrollment and
# a report per session made durable by group commit before each answer;
# its server and its client in two processes, as ldp-server and
# ldp-loadtest are), and prints two tables (reports/s, p50/p99 ack latency,
# fractions of the baselines, the server's peak RSS per agent; sessions
# agents/s, each side's CPU per agent, fractions of the session sinks) with
# the machine it ran on.
#
# Usage: bench/ingest/run_ingest_benchmark.sh [--reports=N] [--streams=S]
#          [--batch=B] [--report_bytes=R] [--build=DIR]
#          [--db_dir=DIR] [--out_dir=DIR] [--sink_only] [--no_build]
# Every option can also come from the environment (REPORTS, STREAMS, BATCH,
# REPORT_BYTES, BUILD, DB_DIR, OUT_DIR, SINK_ONLY=1, NO_BUILD=1);
# flags win. Defaults: REPORTS=10000000 STREAMS=16 BATCH=1000
# REPORT_BYTES=120 BUILD=build, DB_DIR=$BUILD (a fresh temporary
# directory is made inside it and removed at exit: keep it on the disk under
# test, not tmpfs). With OUT_DIR the table is also written to
# $OUT_DIR/ingest_benchmark.txt and ldp-loadtest's report to
# $OUT_DIR/ldp-loadtest/. SERVER_FLAGS and LOADTEST_FLAGS add flags to
# ldp-server and ldp-loadtest. Unless NO_BUILD=1 the three programs are
# built first (ninja through cmake --build, JOBS=2 jobs). Both clients
# open one gRPC channel (TCP connection) per stream.
#
# REPORT_BYTES=120: a relay's bulk report carries a bearer token (~80 B),
# a report id (16 B), the randomized payload and the task id, ~120 B on the
# wire; the sink sends opaque reports of that size so both move the same
# bytes per report.
#
# Figures depend on what else the machine is doing: run it on a quiet one.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

for arg in "$@"; do
  case "$arg" in
    --reports=*) REPORTS="${arg#*=}" ;;
    --streams=*) STREAMS="${arg#*=}" ;;
    --batch=*) BATCH="${arg#*=}" ;;
    --report_bytes=*) REPORT_BYTES="${arg#*=}" ;;
    --build=*) BUILD="${arg#*=}" ;;
    --db_dir=*) DB_DIR="${arg#*=}" ;;
    --out_dir=*) OUT_DIR="${arg#*=}" ;;
    --sink_only) SINK_ONLY=1 ;;
    --no_build) NO_BUILD=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_ingest_benchmark.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/../.."
REPO="$PWD"
REPORTS="${REPORTS:-10000000}"
# 16 streams, each with one batch in flight: with 4, the cores idle while
# every stream's batch waits on its commit (bench/reports/INGEST.md).
STREAMS="${STREAMS:-16}"
BATCH="${BATCH:-1000}"
REPORT_BYTES="${REPORT_BYTES:-120}"
BUILD="${BUILD:-build}"
DB_DIR="${DB_DIR:-$BUILD}"
OUT_DIR="${OUT_DIR:-}"
SINK_ONLY="${SINK_ONLY:-0}"
NO_BUILD="${NO_BUILD:-0}"
REPORTS_PER_AGENT="${REPORTS_PER_AGENT:-1}"  # ldp-loadtest's default study
SESSION_AGENTS="${SESSION_AGENTS:-50000}"
SESSION_THREADS="${SESSION_THREADS:-64}"
SESSION_IN_FLIGHT="${SESSION_IN_FLIGHT:-256}"
SESSION_CHANNELS="${SESSION_CHANNELS:-4}"
for v in SESSION_AGENTS SESSION_IN_FLIGHT; do
  if ! [[ "${!v}" =~ ^[0-9]+$ ]]; then
    echo "run_ingest_benchmark.sh: $v must be a whole number, not '${!v}'" >&2; exit 2
  fi
done
for v in REPORTS STREAMS BATCH REPORT_BYTES REPORTS_PER_AGENT SESSION_THREADS SESSION_CHANNELS; do
  if ! [[ "${!v}" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_ingest_benchmark.sh: $v must be a positive integer, not '${!v}'" >&2; exit 2
  fi
done
AGENTS=$((REPORTS / REPORTS_PER_AGENT))
if [ "$SINK_ONLY" != 1 ] && [ $((AGENTS * REPORTS_PER_AGENT)) -ne "$REPORTS" ]; then
  echo "run_ingest_benchmark.sh: REPORTS must be a multiple of REPORTS_PER_AGENT" >&2; exit 2
fi

if [ "$NO_BUILD" != 1 ]; then
  targets=(ingest_sink_baseline session_sink_baseline)
  [ "$SINK_ONLY" = 1 ] || targets+=(ldp-server ldp-loadtest)
  cmake --build "$BUILD" -j "${JOBS:-2}" --target "${targets[@]}"
fi
SINK="$BUILD/bench/ingest_sink_baseline"
SESSION_SINK="$BUILD/bench/session_sink_baseline"
for sink in "$SINK" "$SESSION_SINK"; do
  [ -x "$sink" ] || { echo "missing $sink (build the $(basename "$sink") target)" >&2; exit 1; }
done

mkdir -p "$DB_DIR"
WORK="$(mktemp -d "$DB_DIR/ingest-bench.XXXXXX")"
SERVER_PID=""
cleanup() {
  local rc=$?
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    wait "$SERVER_PID" || true
  fi
  if [ "$rc" -ne 0 ] && [ -s "$WORK/server.log" ]; then
    echo "--- last lines of ldp-server's log:" >&2; tail -n 20 "$WORK/server.log" >&2
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# value KEY LINE: the value of KEY=value in a 'sink key=value ...' line.
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

run_sink() {  # run_sink MODE [FLAGS...]: prints the sink's key=value line
  local log="$WORK/sink-$1.log"
  "$SINK" --mode="$1" --reports="$REPORTS" --streams="$STREAMS" --batch="$BATCH" \
    --report_bytes="$REPORT_BYTES" "${@:2}" > "$log"
  grep '^sink ' "$log"
}

echo "== ingest_sink_baseline --mode=count ($REPORTS reports of $REPORT_BYTES B)" >&2
COUNT_LINE="$(run_sink count)"
echo "$COUNT_LINE" >&2
echo "== ingest_sink_baseline --mode=append (file in $WORK)" >&2
APPEND_LINE="$(run_sink append --file="$WORK/sink-append.bin")"
echo "$APPEND_LINE" >&2

SERVER_ROW=""
PACED_ROW=""
SESSION_ROW=""
SESSION_COUNT_LINE=""
SESSION_APPEND_LINE=""
# The sink has only the callback driver: with SESSION_IN_FLIGHT=0 it runs
# as many sessions at once as ldp-loadtest has threads.
SESSION_SINK_IN_FLIGHT=$(( SESSION_IN_FLIGHT > 0 ? SESSION_IN_FLIGHT : SESSION_THREADS ))
RSS_LINE=""
CPU_LINE=""
# cpu_ticks PID: the process's user + system CPU so far, in clock ticks
# (fields 14 and 15 of /proc/PID/stat, counted after the command name,
# which may hold spaces).
cpu_ticks() {
  sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
# measured_loadtest CPU_FILE FLAGS...: ldp-loadtest against the running
# server, its own CPU (user system, from time(1)) into CPU_FILE; sets
# RUN_SERVER_TICKS to the server's CPU ticks over the same run.
measured_loadtest() {
  local cpu_file="$1" before
  shift
  before="$(cpu_ticks "$SERVER_PID")"
  # shellcheck disable=SC2086  # LOADTEST_FLAGS is a list of flags
  /usr/bin/time -f '%U %S' -o "$cpu_file" \
  "$BUILD/tools/ldp-loadtest" --server="127.0.0.1:$(cat "$WORK/port")" \
    --analyst_token_file="$WORK/ldp.db.analyst_token" "$@" \
    --progress=lines ${LOADTEST_FLAGS:-} >&2
  RUN_SERVER_TICKS="$(( $(cpu_ticks "$SERVER_PID") - before ))"
}
# cpu_per_agent CPU_FILE AGENTS: each process's CPU per agent over the last
# measured_loadtest run.
cpu_per_agent() {
  awk -v t="$RUN_SERVER_TICKS" -v hz="$(getconf CLK_TCK)" -v a="$2" -v l="$(cat "$1")" \
    'BEGIN { split(l, c, " ");
    printf "ldp-server %.2f us, ldp-loadtest %.2f us", t / hz / a * 1e6, (c[1] + c[2]) / a * 1e6 }'
}
if [ "$SINK_ONLY" != 1 ]; then
  OUT="${OUT_DIR:+$OUT_DIR/ldp-loadtest}"
  OUT="${OUT:-$WORK/ldp-loadtest}"
  mkdir -p "$OUT"
  echo "== ldp-server --relay_service (database $WORK/ldp.db)" >&2
  # Every session agent enrolls from 127.0.0.1, one peer: the per-peer
  # enrollment limit (10,000 calls/s by default, meant for devices on many
  # addresses) must not be what the sessions run measures, so it is set far
  # above any rate here; the limiter still runs on every Enroll.
  # shellcheck disable=SC2086  # SERVER_FLAGS is a list of flags
  "$BUILD/server/ldp-server" --db="$WORK/ldp.db" --port=0 --port_file="$WORK/port" \
    --relay_service --enroll_rate_per_peer=1e9 --enroll_burst_per_peer=1e9 \
    ${SERVER_FLAGS:-} > "$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    [ -s "$WORK/port" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$WORK/port" ] || { echo "ldp-server did not start" >&2; exit 1; }
  echo "== ldp-loadtest --mode=bulk: $AGENTS agents x $REPORTS_PER_AGENT report(s)" >&2
  # CPU per agent, each process's own: the server's from its /proc stat
  # (user + system ticks) across the bulk run, the load test's from time(1).
  measured_loadtest "$WORK/loadtest.cpu" --mode=bulk --agents="$AGENTS" \
    --streams="$STREAMS" --batch="$BATCH" --out="$OUT"
  CPU_LINE="CPU per agent (bulk run, enroll + poll + upload): $(cpu_per_agent "$WORK/loadtest.cpu" "$AGENTS")"
  # Peak, not current: the high-water mark over the whole run.
  RSS_KB="$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SERVER_PID/status")"
  # Latency below saturation: a second study on the same server, paced at
  # PACED_FRACTION (0.8) of the peak rate just measured, PACED_REPORTS
  # reports (default a tenth of REPORTS, at least 100,000).
  PEAK_AGENTS_PER_S="$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["agents"] / s["seconds"])' "$OUT/summary.json")"
  PACED_RATE="$(awk -v p="$PEAK_AGENTS_PER_S" -v f="${PACED_FRACTION:-0.8}" 'BEGIN { printf "%.0f", p * f }')"
  PACED_AGENTS=$(( ${PACED_REPORTS:-$(( REPORTS / 10 > 100000 ? REPORTS / 10 : 100000 ))} / REPORTS_PER_AGENT ))
  echo "== ldp-loadtest --mode=bulk --rate=$PACED_RATE: $PACED_AGENTS agents at ${PACED_FRACTION:-0.8} of peak" >&2
  measured_loadtest "$WORK/paced.cpu" --mode=bulk --agents="$PACED_AGENTS" \
    --streams="$STREAMS" --batch="$BATCH" --rate="$PACED_RATE" --out="$OUT-paced"
  PACED_ROW="$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); l=s["ack_latency_seconds"]; print(s["reports_per_second"], l["p50"]*1e3, l["p99"]*1e3)' "$OUT-paced/summary.json")"
  if [ "$SESSION_AGENTS" -gt 0 ]; then
    echo "== ldp-loadtest --mode=sessions: $SESSION_AGENTS agents, $SESSION_IN_FLIGHT in flight (0: $SESSION_THREADS threads), $SESSION_CHANNELS channels" >&2
    measured_loadtest "$WORK/sessions.cpu" --mode=sessions --agents="$SESSION_AGENTS" \
      --threads="$SESSION_THREADS" --in_flight="$SESSION_IN_FLIGHT" --channels="$SESSION_CHANNELS" --out="$OUT-sessions"
    SESSION_ROW="$(python3 - "$OUT-sessions/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("mode") != "sessions" or s["reports_accepted"] != s["agents"]:
    sys.exit(f"sessions run: {s['reports_accepted']} of {s['agents']} reports accepted")
print(s["agents"] / s["seconds"], end="")
EOF
)"
    SESSION_ROW="$SESSION_ROW $(cpu_per_agent "$WORK/sessions.cpu" "$SESSION_AGENTS" | awk '{ print $2, $5 }')"
  fi
  kill "$SERVER_PID"
  wait "$SERVER_PID" || true  # its exit status on SIGTERM is not ours
  SERVER_PID=""
  SERVER_ROW="$(python3 - "$OUT/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("mode") != "bulk":
    sys.exit(f"summary.json: mode is {s.get('mode')!r}, expected 'bulk'")
lat = s["ack_latency_seconds"]
print(s["reports_accepted"], s["seconds"], s["reports_per_second"],
      lat["p50"] * 1e3, lat["p99"] * 1e3)
EOF
)"
  read -r ACCEPTED _ _ _ _ <<<"$SERVER_ROW"
  if [ "$ACCEPTED" -ne "$REPORTS" ]; then
    echo "ldp-server accepted $ACCEPTED of $REPORTS reports" >&2; exit 1
  fi
  if [ "$SESSION_AGENTS" -gt 0 ]; then
    # The same sessions on the bare session sink, right after ldp-server's
    # (the VM drifts within minutes), with ldp-server stopped.
    for mode in count append; do
      file=(); [ "$mode" = append ] && file=(--file="$WORK/session-sink.bin")
      echo "== session_sink_baseline --mode=$mode ($SESSION_AGENTS sessions, $SESSION_SINK_IN_FLIGHT in flight)" >&2
      line="$("$SESSION_SINK" --mode="$mode" "${file[@]}" --sessions="$SESSION_AGENTS" \
        --in_flight="$SESSION_SINK_IN_FLIGHT" --channels="$SESSION_CHANNELS" | grep '^session_sink ')"
      echo "$line" >&2
      if [ "$mode" = count ]; then SESSION_COUNT_LINE="$line"; else SESSION_APPEND_LINE="$line"; fi
    done
  fi
  RSS_LINE="$(awk -v kb="$RSS_KB" -v a="$AGENTS" 'BEGIN {
    printf "ldp-server peak RSS (VmHWM): %.1f MiB for %d agents = %.0f bytes/agent\n",
           kb / 1024, a, kb * 1024 / a }')"
fi

REV="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  REV="$REV (with uncommitted changes)"
fi
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
FS="$(df -PT "$WORK" | awk 'NR == 2 { print $1 " (" $2 ")" }')"

# The sessions rows: the bare session sink in both modes and ldp-server,
# each with its server's and its client's CPU per session.
sessions_table() {
  if [ -z "$SESSION_ROW" ]; then
    echo "sessions mode: not run (SESSION_AGENTS=0)"
    return
  fi
  local count_sps append_sps
  count_sps="$(value sessions_per_second "$SESSION_COUNT_LINE")"
  append_sps="$(value sessions_per_second "$SESSION_APPEND_LINE")"
  echo "sessions: $SESSION_AGENTS agents, each Enroll + GetTasks + one UploadReports stream, $SESSION_SINK_IN_FLIGHT at a time, $SESSION_CHANNELS connections"
  printf '%-30s %10s %10s %10s %8s %8s\n' system agents/s server_us client_us "/count" "/append"
  srow() {  # srow NAME AGENTS_PER_S SERVER_US CLIENT_US
    awk -v n="$1" -v r="$2" -v s="$3" -v l="$4" -v c="$count_sps" -v a="$append_sps" \
      'BEGIN { printf "%-30s %10.0f %10.1f %10.1f %8.3f %8.3f\n", n, r, s, l, r / c, r / a }'
  }
  srow "session sink count" "$count_sps" "$(value server_cpu_us "$SESSION_COUNT_LINE")" \
    "$(value client_cpu_us "$SESSION_COUNT_LINE")"
  srow "session sink append+fdatasync" "$append_sps" "$(value server_cpu_us "$SESSION_APPEND_LINE")" \
    "$(value client_cpu_us "$SESSION_APPEND_LINE")"
  local sps server_us client_us
  read -r sps server_us client_us <<<"$SESSION_ROW"
  srow "ldp-server sessions (SQLite)" "$sps" "$server_us" "$client_us"
  if [ "$SESSION_IN_FLIGHT" -eq 0 ]; then
    echo "(ldp-loadtest ran $SESSION_THREADS blocking threads; the sink as many sessions in flight)"
  fi
  echo "client_us: ldp-loadtest's CPU per agent for ldp-server; the sink's client process for the sinks"
  echo "session sink append: $(value commits "$SESSION_APPEND_LINE") group commits (an enrollment and a report per session)"
  echo "raw: $SESSION_COUNT_LINE"
  echo "raw: $SESSION_APPEND_LINE"
}

report() {
  echo "# Ingest benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) CPUs, ${CPU:-unknown CPU}, $(uname -sr); disk under test: $FS"
  echo "commit: $REV"
  echo "run: $REPORTS reports ($REPORT_BYTES B each in the sink), $STREAMS streams (one connection each), $BATCH reports/batch, one batch in flight per stream"
  echo
  printf '%-28s %12s %9s %9s %9s %9s\n' system reports/s p50_ms p99_ms "/count" "/append"
  local count_rps append_rps
  count_rps="$(value reports_per_second "$COUNT_LINE")"
  append_rps="$(value reports_per_second "$APPEND_LINE")"
  row() {  # row NAME RPS P50 P99
    awk -v n="$1" -v r="$2" -v p50="$3" -v p99="$4" -v c="$count_rps" -v a="$append_rps" \
      'BEGIN { printf "%-28s %12.0f %9.2f %9.2f %9.3f %9.3f\n", n, r, p50, p99, r / c, r / a }'
  }
  row "sink count" "$count_rps" "$(value p50_ms "$COUNT_LINE")" "$(value p99_ms "$COUNT_LINE")"
  row "sink append+fdatasync" "$append_rps" "$(value p50_ms "$APPEND_LINE")" \
    "$(value p99_ms "$APPEND_LINE")"
  if [ -n "$SERVER_ROW" ]; then
    local rps p50 p99
    read -r _ _ rps p50 p99 <<<"$SERVER_ROW"
    row "ldp-server bulk (SQLite)" "$rps" "$p50" "$p99"
    read -r rps p50 p99 <<<"$PACED_ROW"
    row "ldp-server at ${PACED_FRACTION:-0.8} of peak" "$rps" "$p50" "$p99"
    echo
    echo "ldp-server: ldp-loadtest's figures; its wall time also covers enrolling and"
    echo "polling the agents (EnrollBatch, GetTasksBatch), which the sink does not do."
    echo "$RSS_LINE"
    echo "$CPU_LINE"
    echo
    sessions_table
  else
    echo "ldp-server bulk (SQLite)     not run (--sink_only)"
  fi
  echo
  echo "sink append: $(value commits "$APPEND_LINE") group commits, $(value batches_per_commit "$APPEND_LINE") batches each"
  echo "raw: $COUNT_LINE"
  echo "raw: $APPEND_LINE"
}

if [ -n "$OUT_DIR" ]; then
  mkdir -p "$OUT_DIR"
  report | tee "$OUT_DIR/ingest_benchmark.txt"
else
  report
fi
