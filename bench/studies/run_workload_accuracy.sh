#!/usr/bin/env bash
# Workload accuracy: Histogram, Prefix and AllRange at N = 256 and 1024 and
# 2-way marginals over d = 8 bits, at ε ∈ {0.5, 1, 2, 4} and n ∈ {10^4, 10^5,
# 10^6}: the large-n limit, the prediction at n and the measured v_max, v_avg
# and max error of naive answering, every fixed strategy and the optimized ones.
#
# Four parts on two lanes, one per core (OpenBLAS single-threaded): lane 1
# runs prefix N = 1024, then the N ≤ 256 workloads; lane 2 all ranges
# N = 1024, then the histogram N = 1024. Each optimizer gets 4 minutes per
# (workload, ε) (the server's planner gets 10); optimized strategies are
# cached in build/strategy-cache, so a rerun skips the optimizers. Writes
# bench/reports/results/workload_accuracy.part{1..4}.{txt,csv} and the summary
# bench/reports/results/workload_accuracy.md. Extra arguments go to every part
# (e.g. --epsilons=1 --agents=100000 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j2 workload_accuracy_experiment
mkdir -p bench/reports/results
# Parts 5 and up are partial reruns (see bench/reports/WORKLOADS.md); a full run
# supersedes them.
rm -f bench/reports/results/workload_accuracy.part[5-9].*
start=$SECONDS
part() {  # part K WORKLOADS...: one run of the experiment
  local out="bench/reports/results/workload_accuracy.part$1"
  OPENBLAS_NUM_THREADS=1 ./build/bench/workload_accuracy_experiment \
      --workloads="$2" --optimizer_minutes=4 --csv="$out.csv" "${@:3}" > "$out.txt"
}
(part 2 prefix:1024 "$@" &&
 part 1 histogram:256,prefix:256,all_range:256,marginals:8:2 "$@") &
lane1=$!
(part 3 all_range:1024 "$@" && part 4 histogram:1024 "$@") &
lane2=$!
wait "$lane1"
wait "$lane2"
echo "# wall time of all parts: $((SECONDS - start)) s on $(nproc) cores ($(uname -m))" \
  | tee -a bench/reports/results/workload_accuracy.part1.txt
python3 bench/studies/summarize_workload_accuracy.py \
  bench/reports/results/workload_accuracy.part{1,2,3,4}.csv > bench/reports/results/workload_accuracy.md
echo "wrote bench/reports/results/workload_accuracy.part{1..4}.{txt,csv} and .md"
