// The server's answer to a workload: R·ŷ with R = W·B, B the weighted
// least-squares inverse of the strategy A, with per-query standard errors,
// a simultaneous confidence band, and optional consistency.
//
// Exact reconstruction (R·A = W) holds whenever W's rows lie in A's row
// space; Create checks it and refuses a strategy that cannot answer the
// workload. Variances are the strategy's closed forms (strategy.h); the
// standard errors shown to analysts plug in the estimated histogram
// projected onto the simplex, so they never come out negative, and use the
// variances at the actual number of reports, not their large-n limit.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_ESTIMATOR_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_ESTIMATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/specs/workload_answer.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategies/workload.h"

namespace ldp {

// Immutable, thread-safe.
class WorkloadEstimator {
 public:
  // FailedPrecondition when the strategy's row space misses W (max entry of
  // |R·A − W| > 1e-6 relative to max |W|); InvalidArgument on a domain-size
  // mismatch.
  static absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> Create(
      Workload workload, std::shared_ptr<const StrategyMechanism> strategy);

  const Workload& workload() const { return workload_; }
  const StrategyMechanism& strategy() const { return *strategy_; }
  // B (N×k): ĥ = B·ŷ.
  const Eigen::MatrixXd& reconstruction() const { return reconstruction_; }
  // max |R·A − W| (0 up to rounding for an exact reconstruction).
  double ReconstructionError() const;

  // Predicted per-user variances (closed forms, no sampling).
  VarianceSummary Variance() const;
  // v_j at histogram h for every query (m values): the limit, or with
  // n > 0 at n agents (StrategyMechanism::FiniteSampleVariances).
  Eigen::VectorXd Variances(const Eigen::VectorXd& h, int64_t n = 0) const;

  // R·ŷ (m values).
  Eigen::VectorXd Answers(const Eigen::VectorXd& y_hat) const;
  // Answers, plug-in standard errors and the band from `n` reports.
  WorkloadAnswer Estimate(const Eigen::VectorXd& y_hat, int64_t n,
                          double confidence, bool consistency) const;

 private:
  WorkloadEstimator(Workload workload,
                    std::shared_ptr<const StrategyMechanism> strategy,
                    Eigen::MatrixXd reconstruction)
      : workload_(std::move(workload)),
        strategy_(std::move(strategy)),
        reconstruction_(std::move(reconstruction)) {}

  Workload workload_;
  std::shared_ptr<const StrategyMechanism> strategy_;
  Eigen::MatrixXd reconstruction_;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_ESTIMATOR_H_
