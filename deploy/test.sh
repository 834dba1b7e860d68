#!/usr/bin/env bash
# The README's test command (and .ci/run): install, build, run every test,
# the fuzzers and the TSan job, in two builds:
#   1. ASan + UBSan build in build-asan/ with clang and libFuzzer's coverage
#      (-DLDP_FUZZ=ON): the whole ctest suite (PostgreSQL tests run through
#      tests/postgres/with_postgres.sh, a throwaway cluster on loopback),
#      then the Python analyst package's tests (python/tests) against the
#      same binaries; then every fuzz target for LDP_FUZZ_SECONDS (default
#      12) each, from its corpus in tests/fuzz/corpus, beside the TSan tests;
#   2. TSan build in build-tsan/ with clang, built at the lowest priority
#      beside the suite, and the server-core tests (tests/server_*, but for
#      the single-threaded codec and parsing units);
#   3. deploy/lint.sh over the deployment files, in the background beside
#      the suite.
# The Release build (GCC) is the README's main command (deploy/build.sh);
# the suite runs in the sanitizer build, which checks everything the
# Release run did and memory errors and UB besides. One instrumented build
# for the tests and the fuzzers instead of a Release, an ASan and a fuzz
# build, unity builds, clang (which compiles instrumented code faster than
# GCC), a precompiled header for the tests, no instrumentation in protoc's
# generated files and no UBSan in the test files themselves
# (cmake/Sanitizers.cmake) are what bring the command from about 80
# minutes towards 30 on two cores. The bench targets are left to the main
# command's build.
# Each job prints its wall time. LDP_CI_QUICK=1 stops after job 1, suite and
# fuzzers (a quick local check; CI always runs everything). LDP_JOBS sets
# the parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${LDP_JOBS:-$(nproc)}"
export LDP_JOBS="$JOBS"

job() {  # job NAME COMMAND...: runs one job and reports its wall time
  local name="$1" start=$SECONDS
  shift
  echo "==== $name"
  "$@"
  echo "==== $name: passed in $((SECONDS - start)) s"
}

configure() {  # configure DIR CMAKE_ARGS...: a clang Debug -O1 sanitizer build
  local dir="$1"
  shift
  # A unity build compiles each library's sources in batches of eight, so
  # the headers they share (gRPC, protobuf, absl, Eigen) are parsed and
  # instantiated once per batch: the libraries compile in about half the
  # time. (Batches of sixteen gain nothing more.) deploy/build.sh (Release)
  # builds file by file, which also keeps every file's includes honest.
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
      -DCMAKE_UNITY_BUILD=ON -DLDP_BUILD_BENCH=OFF "$@" >/dev/null
}

# Every test under ASan + UBSan, then every fuzzer, from one clang build.
# -O1 keeps the statistical tests fast enough that the usual 600 s
# per-test timeout still holds; UB aborts the test (-fno-sanitize-recover,
# cmake/Sanitizers.cmake). Leak checking is on. ctest runs one test more
# than there are cores: the integration tests wait on servers, PostgreSQL
# and sockets, and two at a time leave the cores idle a sixth of the suite.
asan_build() {
  configure build-asan -DLDP_FUZZ=ON
  cmake --build build-asan -j"$JOBS"
}
asan_suite() {
  (cd build-asan &&
   ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$((JOBS + 1))" --timeout 600)
}

# The Python analyst package (python/) against the ASan binaries: pytest
# starts its own ldp-server from build-asan (whose default build generated
# the package's gRPC stubs into build-asan/python) and fills studies with
# ldp-loadtest. The system Python, where Debian's python3-grpcio and friends
# are installed. 15 to 30 s on the 2-core VM, most of it the five-line
# session's 2,000 agent sessions.
python_tests() {
  # The device test loads the ASan build's libldp_agent.so into a Python
  # process of its own, with clang's shared ASan runtime preloaded there
  # (never into the servers, which carry their own).
  LDP_AGENT_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" \
  LDP_BUILD_DIR=build-asan \
  ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      /usr/bin/python3 -m pytest -q python/tests
}

# Each target for LDP_FUZZ_SECONDS (default 12) from its corpus: a smoke
# run per CI; deeper runs are tests/fuzz/run_fuzzers.sh with more seconds.
fuzz() {
  bash tests/fuzz/run_fuzzers.sh build-asan "${LDP_FUZZ_SECONDS:-12}"
}

# TSan over the server core: the group-commit queue, round runtime, store and
# aggregator are where threads meet. These tests use no gRPC; gRPC is
# Debian's uninstrumented build and would drown real reports in false ones.
# absl's mutexes are uninstrumented too: tests/sanitizers/tsan_absl_sync.cc
# tells TSan about them. Debian's OpenBLAS hands work to its own thread pool
# through synchronization TSan cannot see, so BLAS runs single-threaded
# here (OPENBLAS_NUM_THREADS=1): the threads under test are ours. Each
# binary runs all its tests in one process.
tsan_targets() {
  # Tests that start no thread, of code that starts none (codecs, ids,
  # credentials, config parsing, the planner, the program driver, the
  # append decision, the keyring, and the rate limiter's, round runtime's
  # and study registry's single-threaded tests) give TSan nothing to check; the ASan job runs
  # them. The sharded store's own test is left out too: its threads meet
  # only in PostgreSQL's locks, and its writers meet in memory in
  # server_aggregator_postgres_test, which TSan runs.
  local single_threaded='^server_(config|credential|legacy_codec|storage_codec|study_codec|task_id|tokens|planner|program_driver|shard_map|sharded_postgres|append_decision|shuffle_keyring|rate_limiter|round_runtime|study_registry)_test$'
  ninja -C build-tsan -t targets all |
      sed -n 's|^tests/\(server_[a-z0-9_]*_test\): .*|\1|p' |
      grep -Ev "$single_threaded"
}
tsan_build() {
  configure build-tsan -DLDP_SANITIZE=thread
  # shellcheck disable=SC2046
  cmake --build build-tsan -j"$JOBS" --target $(tsan_targets)
}
tsan_tests() {
  local t
  for t in $(tsan_targets); do
    echo "-- $t"
    # PostgreSQL tests need the throwaway server ctest gives them too.
    local run=()
    case "$t" in *postgres*) run=(bash tests/postgres/with_postgres.sh) ;; esac
    OPENBLAS_NUM_THREADS=1 \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitizers/tsan.supp" \
        "${run[@]}" "build-tsan/tests/$t" --gtest_brief=1
  done
}

total=$SECONDS
bash deploy/install-deps.sh
job "asan+ubsan build (clang, fuzz coverage)" asan_build
if [ "${LDP_CI_QUICK:-0}" = 1 ]; then
  job "asan+ubsan suite (ctest)" asan_suite
  job "python client (pytest)" python_tests
  job "fuzzers" fuzz
  echo "LDP_CI_QUICK=1: skipping the TSan job and the deploy lint"
  exit 0
fi
# Background jobs, their output held until collected:
# - the TSan build, at the lowest CPU priority beside the suite: the suite's
#   integration tests wait on servers, PostgreSQL and sockets, and the
#   build takes the cycles they leave;
# - the deploy lint, which waits mostly on apt and npm;
# - later, the fuzzers, which run for a fixed time whatever else runs, two
#   targets at a time beside the TSan tests (one at a time, they outlast
#   those tests).
logs=$(mktemp -d)
tsan_pid="" lint_pid="" fuzz_pid=""
stop_tree() {  # stop_tree PID: a background job and everything it started
  local child
  for child in $(pgrep -P "$1"); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
# A failed job ends the script; the background jobs must not outlive it (a
# niced TSan build left running would race the next run's in build-tsan).
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    local pid
    for pid in $tsan_pid $lint_pid $fuzz_pid; do stop_tree "$pid"; done
  fi
  rm -rf "$logs"
}
trap cleanup EXIT
(renice -n 19 -p "$BASHPID" >/dev/null
 start=$SECONDS; tsan_build && echo "(built in $((SECONDS - start)) s)") \
    >"$logs/tsan" 2>&1 &
tsan_pid=$!
(start=$SECONDS; bash deploy/lint.sh && echo "(lint ran in $((SECONDS - start)) s)") \
    >"$logs/lint" 2>&1 &
lint_pid=$!
collect() {  # collect PID LOG: a background job's status and output
  local status=0
  wait "$1" || status=$?
  cat "$2"
  return "$status"
}
job "asan+ubsan suite (ctest)" asan_suite
job "python client (pytest)" python_tests
job "tsan build (niced, beside the suite)" collect "$tsan_pid" "$logs/tsan"
(start=$SECONDS; LDP_JOBS=2 fuzz && echo "(fuzzers ran in $((SECONDS - start)) s)") \
    >"$logs/fuzz" 2>&1 &
fuzz_pid=$!
job "tsan server tests" tsan_tests
job "fuzzers (beside the TSan tests)" collect "$fuzz_pid" "$logs/fuzz"
job "deploy lint (beside the suite)" collect "$lint_pid" "$logs/lint"
echo "==== all jobs passed in $((SECONDS - total)) s"
