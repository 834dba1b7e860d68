#!/usr/bin/env bash
# Workload accuracy (issue 5, done-when 1 and 2): Histogram, Prefix and
# AllRange at N = 256 and 1024 and 2-way marginals over d = 8 bits, at
# ε ∈ {0.5, 1, 2, 4} and n ∈ {10^4, 10^5, 10^6}: the large-n limit, the
# prediction at n and the measured v_max, v_avg and max error of naive
# answering, every fixed strategy and the optimized ones.
#
# Two processes, one per core (OpenBLAS single-threaded): the N ≤ 256
# workloads, and the N = 1024 ones. Each optimizer gets 4 minutes per
# (workload, ε) (the server's planner gets 10); optimized strategies are
# cached in build/strategy-cache, so a rerun skips the optimizers. Writes
# bench/results/workload_accuracy.part{1,2}.{txt,csv} and the summary
# bench/results/workload_accuracy.md. Extra arguments go to both binaries
# (e.g. --epsilons=1 --agents=100000 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j2 workload_accuracy_experiment
mkdir -p bench/results
parts=("histogram:256,prefix:256,all_range:256,marginals:8:2"
       "prefix:1024,all_range:1024,histogram:1024")
start=$SECONDS
pids=()
for i in 0 1; do
  part="bench/results/workload_accuracy.part$((i + 1))"
  OPENBLAS_NUM_THREADS=1 ./build/bench/workload_accuracy_experiment \
      --workloads="${parts[$i]}" --optimizer_minutes=4 --csv="$part.csv" "$@" \
      > "$part.txt" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for i in 1 2; do
  echo "# wall time of both parts: $((SECONDS - start)) s on $(nproc) cores ($(uname -m))" \
    >> "bench/results/workload_accuracy.part$i.txt"
done
python3 bench/summarize_workload_accuracy.py bench/results/workload_accuracy.part1.csv \
  bench/results/workload_accuracy.part2.csv > bench/results/workload_accuracy.md
echo "wrote bench/results/workload_accuracy.{part1,part2}.{txt,csv} and .md"
