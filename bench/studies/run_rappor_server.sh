#!/usr/bin/env bash
# RAPPOR questions through a real server (bench/reports/RAPPOR.md): for each
# cell (agents n, study ε, false-discovery rate q) and TRIALS seeds, a fresh
# ldp-server and one ldp-loadtest --rappor_candidates run: 100 strings held
# with Zipf(1.1) shares, 10,000 candidates (the 100 and 9,900 decoys), the
# server's own decode (Lasso, least squares, Benjamini–Hochberg). Prints one
# row per cell: mean discoveries, realized FDR (the mean false-discovery
# proportion over trials, what q bounds), recall of the 100 and of the
# strings at >= 5 standard errors.
#
# Usage: bench/studies/run_rappor_server.sh [--build=DIR] [--trials=T]
#          [--agents="100000 1000000"] [--epsilons="1 2"] [--fdrs="0.05 0.2"]
# Defaults: BUILD=build-bench (configured Release here if it has no
# build.ninja), TRIALS=5. Writes bench/reports/results/rappor_server.md.
set -euo pipefail
BUILD=build-bench TRIALS=5 AGENTS="100000 1000000" EPSILONS="1 2" FDRS="0.05 0.2"
for arg in "$@"; do
  case "$arg" in
    --build=*) BUILD="${arg#*=}" ;;
    --trials=*) TRIALS="${arg#*=}" ;;
    --agents=*) AGENTS="${arg#*=}" ;;
    --epsilons=*) EPSILONS="${arg#*=}" ;;
    --fdrs=*) FDRS="${arg#*=}" ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_rappor_server.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.."
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
flock "${LDP_BUILD_LOCK:-/tmp/ldp-build.lock}" ninja -C "$BUILD" -j2 ldp-server ldp-loadtest
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p bench/reports/results
out=bench/reports/results/rappor_server.md

# One trial: a fresh server, one load test; prints its "rappor:" line.
trial() {  # agents epsilon fdr seed
  local dir="$work/t$4" port
  rm -rf "$dir"; mkdir -p "$dir"
  "$BUILD/server/ldp-server" --db="$dir/ldp.db" --port=0 \
    --port_file="$dir/port" --relay_service >"$dir/server.log" 2>&1 &
  local server=$!
  for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
  port="$(cat "$dir/port")"
  "$BUILD/tools/ldp-loadtest" --server="127.0.0.1:$port" \
    --analyst_token_file="$dir/ldp.db.analyst_token" --mode=bulk \
    --agents="$1" --epsilon="$2" --rappor_fdr="$3" --seed="$4" \
    --domain=100 --distribution=zipf --zipf=1.1 --rappor_candidates=10000 \
    --progress=none | grep "rappor:"
  kill "$server"; wait "$server" 2>/dev/null || true
}

{
  echo "| n | ε | q | discoveries | realized FDR | recall | recall of strings ≥ 5σ |"
  echo "|---|---|---|---|---|---|---|"
} | tee "$out"
for n in $AGENTS; do for eps in $EPSILONS; do for q in $FDRS; do
  lines=""
  for seed in $(seq "$TRIALS"); do
    lines+="$(trial "$n" "$eps" "$q" "$seed")"$'\n'
  done
  # "rappor: R discoveries at q = Q, V false (realized FDP F); recall
  #  a/b held strings; c/d at >= 5 sigma ..."
  printf '%s' "$lines" | awk -v n="$n" -v eps="$eps" -v q="$q" '
    { r += $2; fdp += substr($12, 1, length($12) - 2);
      split($14, a, "/"); found += a[1]; held += a[2];
      split($17, s, "/"); sf += s[1]; st += s[2]; t++ }
    END { printf "| %d | %s | %s | %.1f | %.3f | %.3f | %.3f |\n", n, eps, q,
          r / t, fdp / t, found / held, st ? sf / st : 0 }' | tee -a "$out"
done; done; done
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); trials per cell: $TRIALS" | tee -a "$out"
