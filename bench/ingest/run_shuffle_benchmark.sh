#!/usr/bin/env bash
# Shuffler throughput (bench/reports/SHUFFLE.md, "Shuffler throughput"):
# ldp-shuffler beside ldp-server's own bulk ingest, in one run on one
# machine, one ldp-server (SQLite, TLS, trusting the shuffler's test
# certificate) for both:
#   (a) local study: ldp-loadtest --mode=bulk, AGENTS agents; every report
#       goes to the server (relay streams), which checks and stores it;
#   (b) shuffled study, same population: ldp-loadtest --mode=bulk
#       --shuffler; each agent seals its report (HPKE) for the server and
#       the load test submits them to ldp-shuffler, Submit calls of BATCH.
#       Two phases, so that each process's CPU can be told apart:
#       (b1) submit: the shuffler verifies each ticket (Ed25519), stores the
#            report and, when a batch key reaches its threshold, releases
#            the batch into its outbox (permuted, identities dropped). Its
#            --server names a closed port meanwhile, so nothing is
#            delivered: the sender's attempts fail and back off;
#       (b2) delivery: the shuffler is restarted on the same database with
#            the real --server and delivers its outbox; the server opens
#            every payload (HPKE: an X25519 per report), validates and
#            stores it. Timed from the restart until the outbox is empty.
#       In a deployment both phases overlap and share the cores.
# Each row: reports, wall seconds, reports/s, and the CPU (user + system,
# from /proc/PID/stat) per report of ldp-server, ldp-shuffler and
# ldp-loadtest over that phase, and how many cores the rest of the machine
# kept busy meanwhile (from /proc/stat: should be near 0). The reports the shuffler still holds at
# the end (below a batch threshold; released at the round's deadline) are
# counted in (b1) but not delivered in (b2).
#
# Usage: bench/ingest/run_shuffle_benchmark.sh [--agents=N] [--streams=S]
#          [--batch=B] [--min_batch=M] [--build=DIR] [--db_dir=DIR]
#          [--out_dir=DIR] [--no_build]
# Every option can also come from the environment (AGENTS, STREAMS, BATCH,
# MIN_BATCH, BUILD, DB_DIR, OUT_DIR, NO_BUILD=1); flags win. Defaults:
# AGENTS=200000 STREAMS=16 BATCH=1000 MIN_BATCH=10000 BUILD=build
# DB_DIR=$BUILD (a temporary directory inside it, removed at exit). Unless
# NO_BUILD=1 the programs are built first (cmake --build, JOBS=2 jobs).
# With OUT_DIR the table also goes to $OUT_DIR/shuffle_benchmark.txt and
# each ldp-loadtest report to $OUT_DIR/{local,shuffled}/.
#
# Figures depend on what else the machine is doing: run it on a quiet one.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

for arg in "$@"; do
  case "$arg" in
    --agents=*) AGENTS="${arg#*=}" ;;
    --streams=*) STREAMS="${arg#*=}" ;;
    --batch=*) BATCH="${arg#*=}" ;;
    --min_batch=*) MIN_BATCH="${arg#*=}" ;;
    --build=*) BUILD="${arg#*=}" ;;
    --db_dir=*) DB_DIR="${arg#*=}" ;;
    --out_dir=*) OUT_DIR="${arg#*=}" ;;
    --no_build) NO_BUILD=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_shuffle_benchmark.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/../.."
REPO="$PWD"
AGENTS="${AGENTS:-200000}"
STREAMS="${STREAMS:-16}"
BATCH="${BATCH:-1000}"
MIN_BATCH="${MIN_BATCH:-10000}"
BUILD="${BUILD:-build}"
DB_DIR="${DB_DIR:-$BUILD}"
OUT_DIR="${OUT_DIR:-}"
NO_BUILD="${NO_BUILD:-0}"
for v in AGENTS STREAMS BATCH MIN_BATCH; do
  if ! [[ "${!v}" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_shuffle_benchmark.sh: $v must be a positive integer, not '${!v}'" >&2; exit 2
  fi
done

if [ "$NO_BUILD" != 1 ]; then
  cmake --build "$BUILD" -j "${JOBS:-2}" --target ldp-server ldp-shuffler ldp-loadtest ldp
fi
for p in server/ldp-server server/ldp-shuffler tools/ldp-loadtest tools/ldp; do
  [ -x "$BUILD/$p" ] || { echo "missing $BUILD/$p (build the $(basename "$p") target)" >&2; exit 1; }
done

mkdir -p "$DB_DIR"
WORK="$(mktemp -d "$DB_DIR/shuffle-bench.XXXXXX")"
OUT="${OUT_DIR:-$WORK}"
mkdir -p "$OUT"
SERVER_PID=""
SHUFFLER_PID=""
stop() {  # stop PID: SIGTERM and wait (its exit status is not ours)
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" || true; fi
}
cleanup() {
  local rc=$?
  stop "$SHUFFLER_PID"
  stop "$SERVER_PID"
  if [ "$rc" -ne 0 ]; then
    for log in server shuffler; do
      [ -s "$WORK/$log.log" ] || continue
      echo "--- last lines of $WORK/$log.log:" >&2; tail -n 15 "$WORK/$log.log" >&2
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# cpu_ticks PID: user + system CPU so far, in clock ticks (fields 14 and 15
# of /proc/PID/stat, counted after the command name).
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# wait_file FILE PID NAME: until FILE is written or the process is gone.
wait_file() {
  for _ in $(seq 1 300); do
    [ -s "$1" ] && return
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "$3 did not start" >&2; exit 1
}
# machine_ticks: the whole machine's busy CPU so far, in clock ticks (the
# cpu line of /proc/stat without idle and iowait), to tell how much of each
# phase's CPU went to other processes than the three measured.
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
now() { date +%s.%N; }
# other_cores MACHINE_TICKS MEASURED_TICKS T0 T1: the rest of the machine's
# busy CPU over [T0, T1], in cores.
other_cores() {
  awk -v m="$1" -v p="$2" -v a="$3" -v b="$4" -v hz="$HZ" \
    'BEGIN { o = (m - p) / hz / (b - a); printf "%.2f", (o < 0 ? 0 : o) }'
}
# free_port: a loopback port nothing listens on (bound, then released).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

PKI="$WORK/pki"
bash deploy/make_test_certs.sh "$PKI" > /dev/null
echo "== ldp-server (SQLite $WORK/ldp.db, TLS, trusting ldp-shuffler)" >&2
# As in run_ingest_benchmark.sh: every agent enrolls from 127.0.0.1, so the
# per-peer enrollment limit is set far above any rate here.
"$BUILD/server/ldp-server" --db="$WORK/ldp.db" --port=0 --port_file="$WORK/port" \
  --drain_seconds=0 --relay_service --enroll_rate_per_peer=1e9 --enroll_burst_per_peer=1e9 \
  --tls_cert_file="$PKI/server.pem" --tls_key_file="$PKI/server.key" \
  --tls_client_ca_file="$PKI/ca.pem" --trusted_shufflers=ldp-shuffler \
  > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_file "$WORK/port" "$SERVER_PID" ldp-server
ADDRESS="localhost:$(cat "$WORK/port")"

start_shuffler() {  # start_shuffler SERVER_ADDRESS: sets SHUFFLER_PID
  rm -f "$WORK/shuffler.port" "$WORK/metrics.port"
  "$BUILD/server/ldp-shuffler" --data_dir="$WORK/shuffler" --listen=127.0.0.1:0 \
    --port_file="$WORK/shuffler.port" --server="$1" --server_ca="$PKI/ca.pem" \
    --client_cert="$PKI/shuffler.pem" --client_key="$PKI/shuffler.key" \
    --ticket_key_file="$WORK/ldp.db.shuffle_keys.ticket_key" \
    --metrics_port=0 --metrics_port_file="$WORK/metrics.port" >> "$WORK/shuffler.log" 2>&1 &
  SHUFFLER_PID=$!
  wait_file "$WORK/shuffler.port" "$SHUFFLER_PID" ldp-shuffler
  wait_file "$WORK/metrics.port" "$SHUFFLER_PID" "ldp-shuffler's metrics"
}
# metric NAME: the shuffler's current value of a metric.
metric() {
  python3 - "$(cat "$WORK/metrics.port")" "$1" <<'EOF'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
print(int(next((float(l.split()[1]) for l in text.splitlines() if l.startswith(sys.argv[2] + " ")), 0)))
EOF
}
# loadtest NAME FLAGS...: ldp-loadtest --mode=bulk, its own CPU (time(1))
# into $WORK/NAME.cpu, its report into $OUT/NAME.
loadtest() {
  local name=$1; shift
  /usr/bin/time -f '%U %S' -o "$WORK/$name.cpu" \
    "$BUILD/tools/ldp-loadtest" --server="$ADDRESS" --tls_ca_file="$PKI/ca.pem" \
    --analyst_token_file="$WORK/ldp.db.analyst_token" --mode=bulk --agents="$AGENTS" \
    --streams="$STREAMS" --batch="$BATCH" --domain=64 --progress=lines \
    --out="$OUT/$name" "$@" > "$WORK/$name.out"
  cat "$WORK/$name.out" >&2
}
# summary NAME EXPR: a value of ldp-loadtest's summary.json.
summary() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$OUT/$1/summary.json" "$2"; }
HZ="$(getconf CLK_TCK)"
# us TICKS REPORTS: CPU microseconds per report.
us() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { printf "%.1f", (n > 0 ? t / hz / n * 1e6 : 0) }'; }
# loadtest_us NAME REPORTS: ldp-loadtest's CPU microseconds per report.
loadtest_us() { awk -v n="$2" '{ printf "%.1f", (n > 0 ? ($1 + $2) / n * 1e6 : 0) }' "$WORK/$1.cpu"; }

# loadtest_ticks NAME: ldp-loadtest's CPU over its run, in clock ticks.
loadtest_ticks() { awk -v hz="$HZ" '{ printf "%d", ($1 + $2) * hz }' "$WORK/$1.cpu"; }

echo "== (a) local study: ldp-loadtest --mode=bulk, $AGENTS agents" >&2
before="$(cpu_ticks "$SERVER_PID")"
machine_before="$(machine_ticks)"
T0="$(now)"
loadtest local
T1="$(now)"
A_SERVER="$(( $(cpu_ticks "$SERVER_PID") - before ))"
A_OTHER="$(other_cores "$(( $(machine_ticks) - machine_before ))" \
  "$(( A_SERVER + $(loadtest_ticks local) ))" "$T0" "$T1")"
A_REPORTS="$(summary local 's["reports_accepted"]')"
A_SECONDS="$(summary local 's["seconds"]')"

echo "== (b1) shuffled study: ldp-loadtest --mode=bulk --shuffler, $AGENTS agents (delivery held back)" >&2
start_shuffler "127.0.0.1:$(free_port)"
before="$(cpu_ticks "$SERVER_PID")"
shuffler_before="$(cpu_ticks "$SHUFFLER_PID")"
machine_before="$(machine_ticks)"
T0="$(now)"
loadtest shuffled --shuffler="127.0.0.1:$(cat "$WORK/shuffler.port")" \
  --shuffle_min_batch="$MIN_BATCH" --shuffle_wait_seconds=0
T1="$(now)"
B1_SERVER="$(( $(cpu_ticks "$SERVER_PID") - before ))"
B1_SHUFFLER="$(( $(cpu_ticks "$SHUFFLER_PID") - shuffler_before ))"
B1_OTHER="$(other_cores "$(( $(machine_ticks) - machine_before ))" \
  "$(( B1_SERVER + B1_SHUFFLER + $(loadtest_ticks shuffled) ))" "$T0" "$T1")"
B1_REPORTS="$(summary shuffled 's["reports_accepted"]')"
B1_SECONDS="$(summary shuffled 's["seconds"]')"
RELEASED="$(metric ldp_shuffler_reports_released_total)"
HELD="$(metric ldp_shuffler_pending_reports)"
BATCHES="$(metric ldp_shuffler_batches_released_total)"
stop "$SHUFFLER_PID"

echo "== (b2) delivery: ldp-shuffler restarted with --server=$ADDRESS, $RELEASED reports in $BATCHES batches" >&2
before="$(cpu_ticks "$SERVER_PID")"
machine_before="$(machine_ticks)"
T0="$(now)"
start_shuffler "$ADDRESS"
# Until the outbox is empty: polled from one process, five times a second.
python3 - "$(cat "$WORK/metrics.port")" <<'EOF'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/metrics"
deadline = time.time() + 3600
while time.time() < deadline:
    text = urllib.request.urlopen(url).read().decode()
    if any(l.startswith("ldp_shuffler_outbox_batches ") and float(l.split()[1]) == 0
           for l in text.splitlines()):
        sys.exit(0)
    time.sleep(0.2)
sys.exit("the outbox did not empty within an hour")
EOF
T1="$(now)"
B2_SHUFFLER="$(cpu_ticks "$SHUFFLER_PID")"  # the whole new process
B2_SERVER="$(( $(cpu_ticks "$SERVER_PID") - before ))"
B2_OTHER="$(other_cores "$(( $(machine_ticks) - machine_before ))" \
  "$(( B2_SERVER + B2_SHUFFLER ))" "$T0" "$T1")"
B2_SECONDS="$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.2f", b - a }')"
DELIVERED="$(metric ldp_shuffler_server_accepted_total)"
FAILURES="$(metric ldp_shuffler_delivery_failures_total)"
STUDY_LINE="$("$BUILD/tools/ldp" --server="$ADDRESS" --tls_ca_file="$PKI/ca.pem" \
  --token_file="$WORK/ldp.db.analyst_token" study status 2 | head -n 1)"
echo "$STUDY_LINE" >&2

REV="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  REV="$REV (with uncommitted changes)"
fi
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
FS="$(df -PT "$WORK" | awk 'NR == 2 { print $1 " (" $2 ")" }')"

report() {
  echo "# Shuffler throughput, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) CPUs, ${CPU:-unknown CPU}, $(uname -sr); databases on $FS"
  echo "commit: $REV"
  echo "run: $AGENTS agents per study, ldp-loadtest --mode=bulk --streams=$STREAMS --batch=$BATCH --domain=64; shuffled study min_batch $MIN_BATCH"
  echo
  printf '%-40s %8s %8s %10s %10s %11s %11s %7s\n' phase reports seconds reports/s \
    server_us shuffler_us loadtest_us other
  row() {  # row NAME REPORTS SECONDS SERVER_TICKS SHUFFLER_US LOADTEST_US OTHER
    printf '%-40s %8d %8.2f %10.0f %10s %11s %11s %7s\n' "$1" "$2" "$3" \
      "$(awk -v n="$2" -v s="$3" 'BEGIN { print n / s }')" "$(us "$4" "$2")" "$5" "$6" "$7"
  }
  row "(a) local: server bulk ingest" "$A_REPORTS" "$A_SECONDS" "$A_SERVER" - \
    "$(loadtest_us local "$A_REPORTS")" "$A_OTHER"
  row "(b1) shuffled: submit to the shuffler" "$B1_REPORTS" "$B1_SECONDS" "$B1_SERVER" \
    "$(us "$B1_SHUFFLER" "$B1_REPORTS")" "$(loadtest_us shuffled "$B1_REPORTS")" "$B1_OTHER"
  row "(b2) shuffled: delivery, server opens" "$DELIVERED" "$B2_SECONDS" "$B2_SERVER" \
    "$(us "$B2_SHUFFLER" "$DELIVERED")" - "$B2_OTHER"
  echo
  echo "(a), (b1): ldp-loadtest's reports and wall time, enrolling and polling included"
  echo "  (server_us (b1): EnrollBatch and GetTasksBatch, a signed ticket per agent; no report reaches it)."
  echo "(b1) shuffler_us: Submit (ticket check, durable store) and the release of $BATCHES batches ($RELEASED reports);"
  echo "  $HELD reports stay held below a threshold. loadtest_us (b1) includes sealing (HPKE) each report."
  echo "(b2): from the shuffler's restart until its outbox is empty; shuffler_us is the restarted process's"
  echo "  whole CPU, server_us the server's over the same time ($FAILURES failed deliveries)."
  echo "other: the rest of the machine's busy CPU over the phase, in cores (other processes, and in"
  echo "  (b2) this script's poller); server_us and loadtest_us also count the study's creation."
  echo "server: $STUDY_LINE"
}

if [ -n "$OUT_DIR" ]; then
  report | tee "$OUT_DIR/shuffle_benchmark.txt"
else
  report
fi
