#!/usr/bin/env bash
# Scale-out benchmark: durable bulk ingest of ldp-server on
#   1. its embedded SQLite store (one server),
#   2. PostgreSQL with one replica,
#   3. PostgreSQL with two replicas on the same database,
#   4. with --shards, PostgreSQL as two shards (two databases of the same
#      cluster: agents spread by id, --db listing both) with one replica
#      and with two,
#   5. with --patroni, PostgreSQL under Patroni with one replica: a primary
#      and a synchronous standby on this machine
#      (deploy/postgres/patroni_cluster.py, same shared_buffers), so every
#      commit also waits for the standby's flush,
# each driven by ldp-loadtest --mode=bulk with AGENTS agents (one report
# each) over STREAMS relay streams (with two replicas the streams alternate
# between them, and ldp-loadtest checks that both give the same estimates).
# PostgreSQL is a throwaway local cluster (tests/postgres/with_postgres.sh,
# fsync on; LDP_PG_SETTINGS, default below, sizes it); each PostgreSQL run
# gets a fresh database. Prints one table with the machine it ran on.
#
# Besides reports/s and the ack latency, each row gives CPU µs per report
# on the server side (the ldp-server processes) and the database side
# (every process of the postgres user, so an idle cluster adds its little;
# on SQLite the store is inside the server).
#
# With --baseline=DIR, each round also runs PostgreSQL with one and two
# replicas on DIR's ldp-server (another build, say of an earlier commit;
# the load generator stays BUILD's), rows labelled baseline-.
#
# Usage: bench/ingest/run_replicas_benchmark.sh [--agents=N] [--streams=S]
#          [--batch=B] [--build=DIR] [--out_dir=DIR] [--no_build] [--shards]
#          [--patroni] [--baseline=DIR]
# Environment: AGENTS (default 1000000), STREAMS (32), BATCH (1000), BUILD
# (build), OUT_DIR (ldp-loadtest reports and the table go there if set),
# NO_BUILD=1, SHARDS=1, PATRONI=1, REPEAT (3: rounds of all three runs, interleaved), SERVER_FLAGS
# (added to every ldp-server). Run it on a quiet machine: the load
# generator, the replicas and PostgreSQL share its CPUs, and a shared VM
# still varies by ±10 % from run to run, hence the repeats.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --agents=*) AGENTS="${arg#*=}" ;;
    --streams=*) STREAMS="${arg#*=}" ;;
    --batch=*) BATCH="${arg#*=}" ;;
    --build=*) BUILD="${arg#*=}" ;;
    --out_dir=*) OUT_DIR="${arg#*=}" ;;
    --no_build) NO_BUILD=1 ;;
    --shards) SHARDS=1 ;;
    --patroni) PATRONI=1 ;;
    --baseline=*) BASELINE="${arg#*=}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_replicas_benchmark.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.."
export AGENTS="${AGENTS:-1000000}" STREAMS="${STREAMS:-32}" BATCH="${BATCH:-1000}"
export BUILD="${BUILD:-build}" OUT_DIR="${OUT_DIR:-}" NO_BUILD="${NO_BUILD:-0}"
export REPEAT="${REPEAT:-3}" PATRONI="${PATRONI:-0}" SHARDS="${SHARDS:-0}"
export BASELINE="${BASELINE:-}"
if [ -n "$BASELINE" ] && [ ! -x "$BASELINE/server/ldp-server" ]; then
  echo "run_replicas_benchmark.sh: no $BASELINE/server/ldp-server (--baseline names a build directory)" >&2
  exit 2
fi
for v in AGENTS STREAMS BATCH REPEAT; do
  if ! [[ "${!v}" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_replicas_benchmark.sh: $v must be a positive integer, not '${!v}'" >&2; exit 2
  fi
done

# Under a throwaway PostgreSQL cluster: re-run inside the wrapper. The
# cluster is sized as deploy/postgres/postgresql.conf.example says for a
# dedicated server (scaled to this machine): fsync and synchronous_commit
# stay on, so every acknowledged report is durable.
export LDP_PG_SETTINGS="${LDP_PG_SETTINGS:-shared_buffers = 1GB
max_wal_size = 8GB
checkpoint_timeout = 15min}"
if [ -z "${LDP_TEST_POSTGRES_URL:-}" ]; then
  if [ "$NO_BUILD" != 1 ]; then
    cmake --build "$BUILD" -j "${JOBS:-2}" --target ldp-server ldp-loadtest
  fi
  exec bash tests/postgres/with_postgres.sh bash "$0" --no_build
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/replicas-bench.XXXXXX")"
PIDS=()
# Its own directory, which the postgres user (under root) can reach.
PATRONI_DIR="$(mktemp -d "${TMPDIR:-/tmp}/replicas-bench-patroni.XXXXXX")"
chmod 755 "$PATRONI_DIR"
cleanup() {
  local rc=$?
  [ "$PATRONI" != 1 ] || /usr/bin/python3 deploy/postgres/patroni_cluster.py down "$PATRONI_DIR" || true
  rm -rf "$PATRONI_DIR"
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    for log in "$WORK"/server-*.log; do
      [ -s "$log" ] && { echo "--- last lines of $log:" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "replicas-benchmark-analyst-token-0123456789" > "$WORK/analyst_token"
BASE_URL="${LDP_TEST_POSTGRES_URL%/*}"  # postgresql://user@host:port

PORT=""
SERVER_BUILD="$BUILD"  # whose ldp-server start_server runs
start_server() {  # start_server NAME DB: starts ldp-server, sets PORT
  # (not run in a $(...) subshell: PIDS must reach stop_servers)
  local name="$1" db="$2"
  rm -f "$WORK/port-$name"
  # shellcheck disable=SC2086  # SERVER_FLAGS is a list of flags
  "$SERVER_BUILD/server/ldp-server" --db="$db" --port=0 --port_file="$WORK/port-$name" \
    --analyst_token_file="$WORK/analyst_token" --relay_service \
    --strategy_cache_dir="$WORK/strategies" ${SERVER_FLAGS:-} \
    > "$WORK/server-$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 300); do
    [ -s "$WORK/port-$name" ] && break
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$WORK/port-$name" ] || { echo "ldp-server $name did not start" >&2; exit 1; }
  PORT="$(cat "$WORK/port-$name")"
}

stop_servers() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}

# Each PostgreSQL run starts alike: the previous run's database dropped and
# its dirty pages checkpointed, so no run pays for another's writes.
fresh_database() {  # fresh_database NAME...: prints their URLs, one line
  local drops=() creates=() urls=() db
  for db in bench_one bench_two bench_s1 bench_s2; do
    drops+=(-c "DROP DATABASE IF EXISTS $db")
  done
  for db in "$@"; do
    creates+=(-c "CREATE DATABASE $db")
    urls+=("$BASE_URL/$db")
  done
  psql -q -d "$BASE_URL/postgres" "${drops[@]}" -c "CHECKPOINT" "${creates[@]}" >&2
  echo "${urls[*]}"
}

# The Patroni cluster, once for all rounds; a fresh database on its primary
# per round, as above.
if [ "$PATRONI" = 1 ]; then
  PATRONI_URL="$(/usr/bin/python3 deploy/postgres/patroni_cluster.py up "$PATRONI_DIR" \
    --port=$((27000 + RANDOM % 2000)) --shared_buffers=1GB)"
fi
fresh_patroni_database() {  # prints its URL
  local rw="${PATRONI_URL%/*}/postgres?target_session_attrs=read-write"
  psql -q -d "$rw" -c "DROP DATABASE IF EXISTS bench_sync" -c "CHECKPOINT" \
    -c "CREATE DATABASE bench_sync" >&2
  echo "${PATRONI_URL%/*}/bench_sync"
}

# CPU seconds so far of the processes PIDS or of the postgres user's.
cpu_seconds() {  # cpu_seconds pids PID... | cpu_seconds user NAME
  python3 bench/ingest/cpu_seconds.py "$@"
}

ROWS=()
run() {  # run LABEL SERVERS: one ldp-loadtest run, appends a table row
  local label="$1" servers="$2" out="$WORK/out-$1-$ROUND"
  echo "== $label: ldp-loadtest --mode=bulk --agents=$AGENTS --server=$servers" >&2
  local server0 db0 server1 db1
  server0="$(cpu_seconds pids "${PIDS[@]}")" db0="$(cpu_seconds user postgres)"
  "$BUILD/tools/ldp-loadtest" --server="$servers" --analyst_token_file="$WORK/analyst_token" \
    --mode=bulk --agents="$AGENTS" --streams="$STREAMS" --batch="$BATCH" \
    --out="$out" --progress=lines >&2
  server1="$(cpu_seconds pids "${PIDS[@]}")" db1="$(cpu_seconds user postgres)"
  ROWS+=("$(python3 - "$out/summary.json" "$label" "$AGENTS" "$server0" "$server1" "$db0" "$db1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
if s["reports_accepted"] != int(sys.argv[3]):
    sys.exit(f"{sys.argv[2]}: {s['reports_accepted']} of {sys.argv[3]} reports accepted")
lat = s["ack_latency_seconds"]
server0, server1, db0, db1 = map(float, sys.argv[4:8])
per = 1e6 / int(sys.argv[3])  # CPU seconds -> µs per report
print(f"{sys.argv[2]:<28} {s['reports_per_second']:>12.0f} {lat['p50']*1e3:>9.1f} {lat['p99']*1e3:>9.1f}"
      f" {(server1 - server0) * per:>10.1f} {(db1 - db0) * per:>10.1f}")
EOF
)")
  if [ -n "$OUT_DIR" ]; then mkdir -p "$OUT_DIR"; cp -r "$out" "$OUT_DIR/$label-$ROUND"; fi
}

replica_runs() {  # replica_runs LABEL: PostgreSQL with one replica, then two
  local label="$1" url port_a
  url="$(fresh_database bench_one)"
  start_server "$label-1" "$url"
  run "$label-1-replica" "127.0.0.1:$PORT"
  stop_servers

  url="$(fresh_database bench_two)"
  start_server "$label-2a" "$url"
  port_a="$PORT"
  start_server "$label-2b" "$url"
  run "$label-2-replicas" "127.0.0.1:$port_a,127.0.0.1:$PORT"
  stop_servers
}

# REPEAT rounds of the three (four), interleaved, so that a slow spell of a shared
# machine hits all three alike; every run is a row.
for ROUND in $(seq 1 "$REPEAT"); do
  rm -f "$WORK/ldp.db"*
  start_server sqlite "$WORK/ldp.db"
  run embedded-sqlite "127.0.0.1:$PORT"
  stop_servers

  replica_runs postgresql
  if [ -n "$BASELINE" ]; then
    SERVER_BUILD="$BASELINE"
    replica_runs baseline-pg
    SERVER_BUILD="$BUILD"
  fi

  if [ "$SHARDS" = 1 ]; then
    url="$(fresh_database bench_s1 bench_s2)"
    start_server s1 "$url"
    run postgresql-2-shards-1-repl "127.0.0.1:$PORT"
    stop_servers

    url="$(fresh_database bench_s1 bench_s2)"
    start_server s2a "$url"
    port_a="$PORT"
    start_server s2b "$url"
    run postgresql-2-shards-2-repl "127.0.0.1:$port_a,127.0.0.1:$PORT"
    stop_servers
  fi

  if [ "$PATRONI" = 1 ]; then
    url="$(fresh_patroni_database)"
    start_server sync "$url"
    run patroni-sync-1-replica "127.0.0.1:$PORT"
    stop_servers
  fi
done

TABLE=/dev/null
[ -z "$OUT_DIR" ] || TABLE="$OUT_DIR/replicas_benchmark.txt"
REV="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
{
  echo "# Scale-out benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) CPUs, ${CPU:-unknown CPU}, $(uname -sr); PostgreSQL $(postgres --version 2>/dev/null || "$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)/postgres" --version)"
  [ -z "$BASELINE" ] || echo "baseline: ldp-server of $BASELINE"
  echo "commit: $REV; $AGENTS agents x 1 report, $STREAMS streams, $BATCH reports/batch, $REPEAT rounds"
  echo
  printf '%-28s %12s %9s %9s %10s %10s\n' system reports/s p50_ms p99_ms server_us db_us
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "median of the rounds:"
  printf '%s\n' "${ROWS[@]}" |
    python3 bench/ingest/median_rows.py --range 28 12.0f 9.1f 9.1f 10.1f 10.1f
} | tee "$TABLE"
