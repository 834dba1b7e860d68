// The grid of ldp-bench-shuffle: every (n, target ε, oracle) cell measured
// in the local and the shuffle model on the same populations.
//
// Why one population per (n, trial) for every cell: the local and shuffled
// figures of a cell (and the cells of one n) then differ only by the
// randomizers' coins, and the run draws n·T items once instead of once per
// cell.
#ifndef LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_GRID_H_
#define LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_GRID_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "bench/studies/shuffle/shuffle_study.h"

namespace ldp::shuffle_study {

struct GridOptions {
  std::vector<int64_t> ns;
  // Trials per n: one entry per n, or one entry for every n.
  std::vector<int> trials;
  std::vector<double> epsilons;  // central targets
  std::vector<Oracle> oracles;
  uint32_t domain_size = 64;
  double zipf_exponent = 1.1;
  double delta = 1e-8;
  uint64_t seed = 1;
  int threads = 2;
};

// The trials at ns[index] (InvalidArgument-free: ValidateGrid checked).
int TrialsAt(const GridOptions& options, size_t index);

// InvalidArgument for an empty list, n < 2, trials < 1, a trials list that
// matches neither one entry nor the n list, or threads outside [1, 64].
absl::Status ValidateGrid(const GridOptions& options);

struct CellResult {
  Oracle oracle = Oracle::kGrr;
  int64_t n = 0;
  PrivacyPlan plan;
  ModelStats local;     // reports at ε = the target
  ModelStats shuffled;  // reports at ε0 = plan.epsilon0
};

// Runs the grid, n by n; calls on_cell for every cell of an n once its
// trials are done (in ε, then oracle order), and on_progress after every
// trial with (n, trial, trials).
absl::Status RunGrid(const GridOptions& options,
                     absl::FunctionRef<void(const CellResult&)> on_cell,
                     absl::FunctionRef<void(int64_t, int, int)> on_progress);

}  // namespace ldp::shuffle_study

#endif  // LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_GRID_H_
