// Chooses the strategy for (W, ε): builds every candidate that fits —
// identity, hierarchical trees, Haar, Fourier (bit workloads), the
// γ₂-optimal factorization with the ℓ2-ball randomizer, and an optimized
// matrix Q — predicts each one's worst-query variance at point-mass and at
// uniform data from its closed forms, and keeps the smallest worst.
// Optimized candidates are cached on disk by a hash of (workload, ε,
// options), so N = 1024 is optimized once.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_PLANNER_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_answer.h"

namespace ldp {

class Workload;           // workload.h
class WorkloadEstimator;  // workload_estimator.h

struct StrategyPlannerOptions {
  bool include_optimized_matrix = true;
  bool include_factorization = true;
  // Only candidates a task can carry (kMaxStrategyMatrixEntries).
  bool wire_sized_only = false;
  // Where optimized strategies are cached; empty = no cache.
  std::string cache_dir{};
  absl::Duration optimizer_time_limit = absl::Minutes(10);
};

struct StrategyCandidate {
  StrategySpec spec;
  std::string description;
  VarianceSummary variance;
  // Factorization only: the certified γ₂ lower bound and the achieved
  // ‖R‖₂→∞·‖A‖₁→₂.
  double gamma2_lower = 0;
  double gamma2_upper = 0;
};

struct StrategyPlan {
  StrategyCandidate chosen;
  // Best (smallest VarianceSummary::worst) first.
  std::vector<StrategyCandidate> candidates;
  std::shared_ptr<const WorkloadEstimator> estimator;  // for `chosen`
};

// The attribute sizes of a 1-way marginal workload (attribute marginals, or
// bit marginals of order 1: all 2), which the attribute strategies need;
// empty for any other workload.
std::vector<uint32_t> WorkloadAttributeSizes(const Workload& workload);

absl::StatusOr<StrategyPlan> PlanStrategy(
    const Workload& workload, double epsilon,
    const StrategyPlannerOptions& options = {});

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_PLANNER_H_
