#!/usr/bin/env bash
# Where PostgreSQL's CPU goes when ldp-server ingests: one ldp-server on a
# throwaway local cluster (tests/postgres/with_postgres.sh, fsync on,
# sized as run_replicas_benchmark.sh sizes it) with pg_stat_statements
# loaded, ldp-loadtest --mode=bulk with AGENTS agents (one report each),
# and per report:
#   - the CPU of the ldp-server process and of every postgres process;
#   - the execution time of the batch append statement (kAppendBatch), of
#     the bulk enrollment (kInsertAgents) and of every other statement,
#     from pg_stat_statements (time inside the executor, waits included).
# With --baseline=DIR, the ldp-server and ldp-loadtest of DIR (a build
# tree, or any DIR/server/ldp-server and DIR/tools/ldp-loadtest) run too,
# interleaved with BUILD's round by round, so a change to the append path
# is measured against what it replaced in one run on one machine. Each
# run gets a fresh database. Prints one table with the machine it ran on.
#
# Usage: bench/ingest/run_append_profile.sh [--agents=N] [--build=DIR]
#          [--baseline=DIR] [--out_dir=DIR] [--no_build]
# Environment: AGENTS (default 1000000), STREAMS (32), BATCH (1000), BUILD
# (build), BASELINE (none), REPEAT (3 rounds), OUT_DIR (the table goes
# there if set), NO_BUILD=1. Run it on a quiet machine.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --agents=*) AGENTS="${arg#*=}" ;;
    --build=*) BUILD="${arg#*=}" ;;
    --baseline=*) BASELINE="${arg#*=}" ;;
    --out_dir=*) OUT_DIR="${arg#*=}" ;;
    --no_build) NO_BUILD=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_append_profile.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.."
export AGENTS="${AGENTS:-1000000}" STREAMS="${STREAMS:-32}" BATCH="${BATCH:-1000}"
export BUILD="${BUILD:-build}" BASELINE="${BASELINE:-}" OUT_DIR="${OUT_DIR:-}"
export NO_BUILD="${NO_BUILD:-0}" REPEAT="${REPEAT:-3}"
for v in AGENTS STREAMS BATCH REPEAT; do
  if ! [[ "${!v}" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_append_profile.sh: $v must be a positive integer, not '${!v}'" >&2; exit 2
  fi
done
for dir in "$BUILD" ${BASELINE:+"$BASELINE"}; do
  if [ "$NO_BUILD" = 1 ] || [ "$dir" != "$BUILD" ]; then
    for bin in server/ldp-server tools/ldp-loadtest; do
      [ -x "$dir/$bin" ] || { echo "run_append_profile.sh: no $dir/$bin" >&2; exit 2; }
    done
  fi
done

export LDP_PG_SETTINGS="${LDP_PG_SETTINGS:-shared_buffers = 1GB
max_wal_size = 8GB
checkpoint_timeout = 15min
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all}"
if [ -z "${LDP_TEST_POSTGRES_URL:-}" ]; then
  if [ "$NO_BUILD" != 1 ]; then
    cmake --build "$BUILD" -j "${JOBS:-2}" --target ldp-server ldp-loadtest
  fi
  exec bash tests/postgres/with_postgres.sh bash "$0" --no_build
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/append-profile.XXXXXX")"
SERVER_PID=""
cleanup() {
  [ -z "$SERVER_PID" ] || kill "$SERVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
echo "append-profile-analyst-token-0123456789" > "$WORK/analyst_token"
BASE_URL="${LDP_TEST_POSTGRES_URL%/*}"

# A fresh database "bench" with pg_stat_statements in a schema of its own
# (ldp-server refuses a public schema that holds foreign objects).
fresh_database() {
  psql -q -d "$BASE_URL/postgres" -c "DROP DATABASE IF EXISTS bench" \
    -c "CHECKPOINT" -c "CREATE DATABASE bench" >&2
  psql -q -d "$BASE_URL/bench" -c "CREATE SCHEMA pgss" \
    -c "CREATE EXTENSION pg_stat_statements SCHEMA pgss" >&2
}

# CPU seconds so far of the processes PIDS or of the postgres user's.
cpu_seconds() {  # cpu_seconds pids PID... | cpu_seconds user NAME
  python3 bench/ingest/cpu_seconds.py "$@"
}

# Executor ms of the append, the enrollment and the rest, one line.
statement_ms() {
  psql -At -F ' ' -d "$BASE_URL/bench" -c "
    SELECT coalesce(sum(total_exec_time) FILTER (WHERE query LIKE 'WITH input AS%'), 0),
           coalesce(sum(total_exec_time) FILTER (WHERE query LIKE 'WITH ins AS%INSERT INTO agents%'), 0),
           coalesce(sum(total_exec_time) FILTER (WHERE query NOT LIKE 'WITH input AS%'
                                                   AND query NOT LIKE 'WITH ins AS%INSERT INTO agents%'), 0)
    FROM pgss.pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')"
}

ROWS=()
run() {  # run LABEL DIR: one load test on a fresh database, appends a row
  local label="$1" dir="$2" out="$WORK/out-$1-$ROUND"
  fresh_database
  rm -f "$WORK/port"
  "$dir/server/ldp-server" --db="$BASE_URL/bench" --port=0 --port_file="$WORK/port" \
    --analyst_token_file="$WORK/analyst_token" --relay_service \
    --strategy_cache_dir="$WORK/strategies" > "$WORK/server-$label.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    [ -s "$WORK/port" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$WORK/port" ] || { cat "$WORK/server-$label.log" >&2; echo "ldp-server $label did not start" >&2; exit 1; }
  psql -q -d "$BASE_URL/bench" -c "SELECT pgss.pg_stat_statements_reset()" >/dev/null
  echo "== $label, round $ROUND: ldp-loadtest --mode=bulk --agents=$AGENTS" >&2
  local s0 d0 s1 d1
  s0="$(cpu_seconds pids "$SERVER_PID")" d0="$(cpu_seconds user postgres)"
  "$dir/tools/ldp-loadtest" --server="127.0.0.1:$(cat "$WORK/port")" \
    --analyst_token_file="$WORK/analyst_token" --mode=bulk --agents="$AGENTS" \
    --streams="$STREAMS" --batch="$BATCH" --out="$out" --progress=none >&2
  s1="$(cpu_seconds pids "$SERVER_PID")" d1="$(cpu_seconds user postgres)"
  local statements
  statements="$(statement_ms)"
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  # shellcheck disable=SC2086  # statements is three numbers
  ROWS+=("$(python3 - "$out/summary.json" "$label" "$AGENTS" "$s0" "$s1" "$d0" "$d1" $statements <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
if s["reports_accepted"] != n:
    sys.exit(f"{sys.argv[2]}: {s['reports_accepted']} of {n} reports accepted")
s0, s1, d0, d1, append, enroll, other = map(float, sys.argv[4:11])
us = lambda seconds: seconds * 1e6 / n
print(f"{sys.argv[2]:<10} {s['reports_per_second']:>10.0f} {us(s1 - s0):>9.1f} {us(d1 - d0):>9.1f}"
      f" {us(append / 1e3):>10.2f} {us(enroll / 1e3):>10.2f} {us(other / 1e3):>9.2f}")
EOF
)")
}

for ROUND in $(seq 1 "$REPEAT"); do
  if [ -n "$BASELINE" ]; then
    # Alternate who goes first, so neither always meets a warmer cache.
    if [ $((ROUND % 2)) = 1 ]; then
      run baseline "$BASELINE"; run build "$BUILD"
    else
      run build "$BUILD"; run baseline "$BASELINE"
    fi
  else
    run build "$BUILD"
  fi
done

TABLE=/dev/null
[ -z "$OUT_DIR" ] || { mkdir -p "$OUT_DIR"; TABLE="$OUT_DIR/append_profile.txt"; }
REV="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
{
  echo "# PostgreSQL ingest profile, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) CPUs, ${CPU:-unknown CPU}, $(uname -sr); $("${LDP_PGBIN:-/usr/lib/postgresql/15/bin}/postgres" --version)"
  echo "commit: $REV; build $BUILD${BASELINE:+, baseline $BASELINE}; $AGENTS agents x 1 report, $STREAMS streams, $BATCH reports/batch, $REPEAT rounds"
  echo "µs per report: CPU of ldp-server and of PostgreSQL; executor time of the append, the enrollment and the other statements"
  echo
  printf '%-10s %10s %9s %9s %10s %10s %9s\n' run reports/s server_us db_us append_us enroll_us other_us
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "median of the rounds:"
  printf '%s\n' "${ROWS[@]}" |
    python3 bench/ingest/median_rows.py 10 10.0f 9.1f 9.1f 10.2f 10.2f 9.2f
} | tee "$TABLE"
