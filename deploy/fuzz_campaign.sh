#!/usr/bin/env bash
# A long fuzzing run outside CI: every libFuzzer target in tests/fuzz for a
# set time, or a set number of executions, each from its committed corpus
# (tests/fuzz/corpus/<target>/), then the inputs that found new coverage
# merged into that corpus with -merge=1 (only what adds coverage, so it
# stays small). Prints a table of executions, exec/s and corpus size per
# target. Exits non-zero if a target crashed, leaked, timed out or failed a
# check, with the path of the input that did it.
#
#   bash deploy/fuzz_campaign.sh [--build DIR] [--configure]
#        [--seconds N] [--runs N] [--jobs N] [--targets "a b ..."]
#        [--no-merge]
#
#   --build DIR    a build configured with -DLDP_FUZZ=ON (default build-fuzz)
#   --configure    configure DIR first as the fast fuzzing build: clang,
#                  -O2 with line tables (asserts kept), ASan + UBSan (what
#                  -DLDP_FUZZ=ON always brings, cmake/Sanitizers.cmake: there
#                  is no sanitizer-free fuzz build), no tests or benchmarks,
#                  so only the fuzzers and their libraries are built; done
#                  anyway when DIR has no build.ninja
#   --seconds N    seconds per target (default 600 without --runs)
#   --runs N       executions per target (libFuzzer -runs); with --seconds,
#                  a target stops at whichever comes first
#   --jobs N       targets run at once (default 1; one core each)
#   --targets ...  a subset, e.g. --targets "agent_c_fuzzer relay_batch_fuzzer";
#                  TARGET:N runs that target N executions instead of --runs
#                  (to top up a target that an earlier campaign left short)
#   --no-merge     leave the committed corpus alone
#
# LDP_FUZZ_FLAGS adds libFuzzer flags for every target (e.g. -max_len=8192).
#
# The fuzzers are (re)built first, holding /tmp/ldp-build.lock (LDP_BUILD_LOCK)
# so that builds on a shared machine do not overlap. Work files go to
# DIR/fuzz-campaign/<target>/ (log, new inputs, artifacts), replaced by the
# next run; a campaign is refused a target that another one is fuzzing.
# Safe to run again: the merge only adds inputs with new coverage.
# On a shared machine: nice -n 10 bash deploy/fuzz_campaign.sh ...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

build=build-fuzz configure=0 seconds="" runs="" jobs=1 merge=1
specs=(report_validation_fuzzer query_evaluation_fuzzer study_parsing_fuzzer
         estimator_decoding_fuzzer upload_stream_fuzzer sealed_payload_fuzzer
         agent_c_fuzzer relay_batch_fuzzer study_convert_fuzzer)
usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --configure) configure=1; shift ;;
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --targets) read -r -a specs <<<"$2"; shift 2 ;;
    --no-merge) merge=0; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
lock="${LDP_BUILD_LOCK:-/tmp/ldp-build.lock}"
targets=()
declare -A own_runs=()
for spec in "${specs[@]}"; do
  targets+=("${spec%%:*}")
  if [[ "$spec" == *:* ]]; then own_runs["${spec%%:*}"]="${spec#*:}"; fi
done

if [ "$configure" = 1 ] || [ ! -f "$build/build.ninja" ]; then
  flock "$lock" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_C_FLAGS_RELEASE="-O2 -gline-tables-only" \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -gline-tables-only" \
      -DCMAKE_UNITY_BUILD=ON -DLDP_FUZZ=ON \
      -DLDP_BUILD_TESTS=OFF -DLDP_BUILD_BENCH=OFF >/dev/null
fi
flock "$lock" ninja -C "$build" -j"$(nproc)" "${targets[@]}" >/dev/null
build="$(cd "$build" && pwd)"

work="$build/fuzz-campaign"
mkdir -p "$work"
# A lock per target, held until the campaign ends: two campaigns may share
# a build, but never fuzz the same target (its work files and corpus).
for target in "${targets[@]}"; do
  exec {fd}>"$work/$target.lock"
  if ! flock -n "$fd"; then
    echo "another fuzz campaign is running $target on $build" >&2
    exit 1
  fi
done

if [ -z "$seconds" ] && [ -z "$runs" ]; then seconds=600; fi
limits() {  # limits TARGET: its libFuzzer -max_total_time and -runs
  if [ -n "$seconds" ]; then echo -max_total_time="$seconds"; fi
  local n="${own_runs[$1]:-$runs}"
  if [ -n "$n" ]; then echo -runs="$n"; fi
}
# As tests/fuzz/run_fuzzers.sh: one BLAS thread, and no per-input leak
# check for the relay target (its aggregator's thread allocates meanwhile).
export OPENBLAS_NUM_THREADS=1
# ASan's cost per allocation, cut where detection loses little: no
# allocation stacks kept (a crash is replayed with the defaults for them),
# no fill of fresh memory, a 16 MB quarantine for use-after-free. Set
# ASAN_OPTIONS to override.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0:max_malloc_fill_size=0:quarantine_size_mb=16}"
read -r -a extra <<<"${LDP_FUZZ_FLAGS:-}"
target_flags() {
  case "$1" in
    relay_batch_fuzzer) echo -detect_leaks=0 ;;
  esac
}

run_one() {  # run_one TARGET: fuzz, then merge what is new
  local target="$1" dir="$work/$1" corpus="$root/tests/fuzz/corpus/$1"
  local bin="$build/tests/fuzz/$1"
  rm -rf "$dir"
  mkdir -p "$dir/new" "$dir/artifacts" "$corpus"
  # -timeout: one input taking 10 s is a finding, not a slow machine.
  local status=0
  # shellcheck disable=SC2046
  "$bin" $(limits "$1") -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/" $(target_flags "$1") "${extra[@]}" \
      "$dir/new" "$corpus" >"$dir/log" 2>&1 || status=$?
  echo "$status" >"$dir/status"
  if [ "$merge" = 1 ] && [ "$status" = 0 ]; then
    "$bin" -merge=1 -rss_limit_mb=2048 -timeout=10 "$corpus" "$dir/new" \
        >"$dir/merge.log" 2>&1 || echo "merge failed" >>"$dir/status"
  fi
}

# A new target starts as soon as any running one ends (wait -n): targets
# stop at different times (-runs, or a crash).
running=0
for target in "${targets[@]}"; do
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

stat() { sed -n "s/^stat::$1: *//p" "$work/$2/log" | tail -1; }
failed=0
printf '%-28s %14s %9s %10s %8s  %s\n' \
    target executions exec/s new_inputs corpus result
for target in "${targets[@]}"; do
  dir="$work/$target"
  artifacts=$(find "$dir/artifacts" -type f | wc -l)
  result=ok
  if [ "$artifacts" -gt 0 ] || [ "$(head -1 "$dir/status")" != 0 ] ||
     grep -q 'merge failed' "$dir/status"; then
    result=FAILED
    failed=1
  fi
  printf '%-28s %14s %9s %10s %8s  %s\n' "$target" \
      "$(stat number_of_executed_units "$target")" \
      "$(stat average_exec_per_sec "$target")" \
      "$(stat new_units_added "$target")" \
      "$(find "$root/tests/fuzz/corpus/$target" -type f | wc -l)" "$result"
done
for target in "${targets[@]}"; do
  dir="$work/$target"
  if [ "$(find "$dir/artifacts" -type f | wc -l)" -eq 0 ] &&
     [ "$(cat "$dir/status")" = 0 ]; then
    continue
  fi
  echo "---- $target: log $dir/log"
  find "$dir/artifacts" -type f -printf 'artifact: %p\n'
  grep -E 'ERROR|fuzz property failed|SUMMARY|Test unit written' "$dir/log" |
      head -20 || true
done
exit "$failed"
