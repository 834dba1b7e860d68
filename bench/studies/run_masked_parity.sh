#!/usr/bin/env bash
# MASKED-PARITY experiment: interactive vs noninteractive learner,
# n = 10^6 simulated agents, ε = 2, d ∈ {8, …, 64}, 20 seeds each. Builds
# the experiment, runs it (about half an hour on a 2-core machine), and
# writes bench/reports/results/masked_parity.{md,csv,svg}.
# Extra arguments go to the experiment binary (e.g. --seeds=2 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j2 masked_parity_experiment
mkdir -p bench/reports/results
./build/bench/masked_parity_experiment --runs_csv=bench/reports/results/masked_parity.csv "$@" \
  | tee bench/reports/results/masked_parity.md
python3 bench/studies/plot_experiment.py bench/reports/results/masked_parity.csv \
  bench/reports/results/masked_parity.svg --x d --group learner \
  --y "exact:exact runs (fraction)" --y "error:mean error of the hypothesis"
echo "wrote bench/reports/results/masked_parity.{md,csv,svg}"
