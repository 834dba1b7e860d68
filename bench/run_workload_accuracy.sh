#!/usr/bin/env bash
# Workload accuracy (issue 5, done-when 1 and 2): Histogram, Prefix and
# AllRange at N = 256 and 1024 and 2-way marginals over d = 8 bits, at
# ε ∈ {0.5, 1, 2, 4} and n ∈ {10^4, 10^5, 10^6}: predicted and measured
# v_max, v_avg and max error of naive answering, every fixed strategy and
# the optimized ones. Optimized strategies are cached in
# build/strategy-cache (a rerun skips the optimizers). Writes
# bench/results/workload_accuracy.{txt,csv} and the summary table
# bench/results/workload_accuracy.md. Extra arguments go to the binary
# (e.g. --workloads=prefix:256 --epsilons=1 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j2 workload_accuracy_experiment
mkdir -p bench/results
start=$SECONDS
./build/bench/workload_accuracy_experiment --csv=bench/results/workload_accuracy.csv "$@" \
  | tee bench/results/workload_accuracy.txt
echo "# wall time: $((SECONDS - start)) s on $(nproc) cores ($(uname -m))" \
  | tee -a bench/results/workload_accuracy.txt
python3 bench/summarize_workload_accuracy.py bench/results/workload_accuracy.csv \
  > bench/results/workload_accuracy.md
echo "wrote bench/results/workload_accuracy.{txt,csv,md}"
