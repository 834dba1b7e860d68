#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time, starting from its corpus
# in tests/fuzz/corpus/<target>/, two at a time (LDP_JOBS), and prints one
# line per target: executions, executions per second, new inputs, peak RSS.
# Exits non-zero if any target finds a crash, leak, timeout or failed check;
# the input that did it is left in <build>/fuzz-runs/<target>/artifacts/.
#
# usage: tests/fuzz/run_fuzzers.sh <build dir configured with -DLDP_FUZZ=ON> [seconds per target]
#
# New inputs go to <build>/fuzz-runs/<target>/new, never into the repo. To
# keep the interesting ones, merge them into the committed corpus:
#   build-asan/tests/fuzz/<target> -merge=1 tests/fuzz/corpus/<target> \
#       build-asan/fuzz-runs/<target>/new
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: run_fuzzers.sh <build dir> [seconds]}" && pwd)"
seconds="${2:-30}"
jobs="${LDP_JOBS:-$(nproc)}"
targets=(report_validation_fuzzer query_evaluation_fuzzer
         study_parsing_fuzzer estimator_decoding_fuzzer upload_stream_fuzzer
         sealed_payload_fuzzer agent_c_fuzzer relay_batch_fuzzer
         study_convert_fuzzer)
runs="$build/fuzz-runs"
rm -rf "$runs"
# One BLAS thread: OpenBLAS's pool otherwise spins beside every planning or
# workload input (and its threads turn each large free into a TLB
# shootdown); study_parsing_fuzzer ran 3 times as many inputs without it.
export OPENBLAS_NUM_THREADS=1

# Flags of one target. relay_batch_fuzzer: its aggregator's writer thread
# allocates while an input runs, so libFuzzer's per-input leak check (more
# mallocs than frees) would scan the whole heap after most inputs; LSan
# still checks at exit.
target_flags() {
  case "$1" in
    relay_batch_fuzzer) echo -detect_leaks=0 ;;
  esac
}

run_one() {
  local target="$1" dir="$runs/$1"
  mkdir -p "$dir/new" "$dir/artifacts"
  # -timeout: one input taking 10 s is a finding (a study or query that
  # stalls the server), not a slow machine.
  # shellcheck disable=SC2046
  "$build/tests/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=1024 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
      $(target_flags "$target") \
      "$dir/new" "$root/tests/fuzz/corpus/$target" >"$dir/log" 2>&1
}

# The next target starts when any running one ends (wait -n), not the oldest.
running=0 status=0
for target in "${targets[@]}"; do
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done

stat() { sed -n "s/^stat::$1: *//p" "$runs/$2/log" | tail -1; }
printf '%-28s %12s %10s %8s %8s  %s\n' target executions exec/s new_inputs rss_mb result
for target in "${targets[@]}"; do
  artifacts=$(find "$runs/$target/artifacts" -type f | wc -l)
  result=ok
  if [ "$artifacts" -gt 0 ] || ! grep -q '^Done ' "$runs/$target/log"; then result=FAILED; fi
  printf '%-28s %12s %10s %8s %8s  %s\n' "$target" "$(stat number_of_executed_units "$target")" \
      "$(stat average_exec_per_sec "$target")" "$(stat new_units_added "$target")" \
      "$(stat peak_rss_mb "$target")" "$result"
  if [ "$result" != ok ]; then
    status=1
    echo "---- $target log (tail) ----"; tail -40 "$runs/$target/log"
  fi
done
exit "$status"
