// How many reports an estimate needs, and what tolerance a given number of
// reports buys: the planner's arithmetic.
//
// An estimator over n reports whose variance is `unit_variance / n` is within
// τ of the truth with probability ≈ 1 − β once n ≥ z²·unit_variance/τ², with
// z = Φ⁻¹(1 − β/2). The Hoeffding form needs no normal approximation: for
// per-report outputs in an interval of width w, n ≥ w²·ln(2/β)/(2τ²).
#ifndef LDP_COMMON_ESTIMATION_SAMPLE_SIZE_H_
#define LDP_COMMON_ESTIMATION_SAMPLE_SIZE_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace ldp {

struct ToleranceGoal {
  double tolerance = 0;      // τ > 0: the allowed absolute error
  double confidence = 0.95;  // 1 − β
};

// Normal approximation; InvalidArgument for τ ≤ 0, non-finite inputs or a
// confidence outside (0, 1), OutOfRange if the answer exceeds 2^62.
absl::StatusOr<int64_t> ReportsNeeded(double unit_variance,
                                      const ToleranceGoal& goal);

// Guaranteed for any distribution of bounded per-report outputs.
absl::StatusOr<int64_t> ReportsNeededHoeffding(double output_range,
                                               const ToleranceGoal& goal);

// Simultaneous version for m estimates (Bonferroni: β/m each).
absl::StatusOr<int64_t> ReportsNeededSimultaneous(double unit_variance,
                                                  int64_t num_estimates,
                                                  const ToleranceGoal& goal);

// The half-width z·√(unit_variance/n) that n reports achieve.
double ToleranceAchieved(double unit_variance, int64_t num_reports,
                         double confidence);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_SAMPLE_SIZE_H_
