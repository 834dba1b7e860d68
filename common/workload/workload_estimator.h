// The server's answer to a workload: R·ŷ with R = W·B, B the weighted
// least-squares inverse of the strategy A, with per-query standard errors,
// a simultaneous confidence band, and optional consistency.
//
// Exact reconstruction (R·A = W) holds whenever W's rows lie in A's row
// space; Create checks it and refuses a strategy that cannot answer the
// workload. Variances are the strategy's closed forms (strategy.h); the
// standard errors shown to analysts plug in the estimated histogram
// projected onto the simplex, so they never come out negative.
#ifndef LDP_COMMON_WORKLOAD_WORKLOAD_ESTIMATOR_H_
#define LDP_COMMON_WORKLOAD_WORKLOAD_ESTIMATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/strategy.h"
#include "common/workload/workload.h"

namespace ldp {

// Per-user variance v_j = n·Var(answer_j), answers as fractions.
struct VarianceSummary {
  // max_j max_x v_j(e_x): worst query, worst point-mass data.
  double v_max = 0;
  uint64_t worst_query = 0;
  uint32_t worst_item = 0;
  // mean_j v_j(uniform h).
  double v_avg = 0;
};

// Answers are sums over O(N·k) double-precision products; this bounds their
// rounding error. Standard errors never go below it, so a query with no
// sampling variance (one every agent satisfies, like the CDF's last) still
// gets a band that covers its truth.
inline constexpr double kAnswerRoundingError = 1e-10;

struct WorkloadAnswer {
  int64_t num_reports = 0;
  double epsilon = 0;
  double confidence = 0;   // 1 − β of the band
  // Unbiased W·h estimates and their plug-in standard errors (m values).
  std::vector<double> answers;
  std::vector<double> standard_errors;
  // The band: answer_j ± band_z·se_j holds for all j at once with
  // probability ≥ confidence (Bonferroni: z_{1−β/(2m)}).
  double band_z = 0;
  // With consistency: W·ĥ⁺, ĥ⁺ the least-squares histogram projected onto
  // the simplex (non-negative, sums to one). Biased; never replaces answers.
  std::optional<std::vector<double>> consistent_answers;
};

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
  // v_j at histogram h for every query (m values).
  Eigen::VectorXd Variances(const Eigen::VectorXd& h) const;

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

#endif  // LDP_COMMON_WORKLOAD_WORKLOAD_ESTIMATOR_H_
