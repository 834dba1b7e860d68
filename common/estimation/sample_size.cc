// Sample-size arithmetic; see the header.
#include "common/estimation/sample_size.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {
namespace {

absl::Status ValidateGoal(const ToleranceGoal& goal) {
  if (!(goal.tolerance > 0) || !std::isfinite(goal.tolerance)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tolerance must be finite and > 0, got ", goal.tolerance));
  }
  return ValidateConfidence(goal.confidence);
}

absl::StatusOr<int64_t> CeilToCount(double n) {
  constexpr double kMax = 4.611686018427388e18;  // 2^62
  if (!(n < kMax)) {
    return absl::OutOfRangeError(absl::StrCat(
        "the goal needs more than 2^62 reports (", n,
        "); relax the tolerance or the confidence, or raise epsilon"));
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(n)));
}

}  // namespace

absl::StatusOr<int64_t> ReportsNeeded(double unit_variance,
                                      const ToleranceGoal& goal) {
  RETURN_IF_ERROR(ValidateGoal(goal));
  if (!(unit_variance >= 0) || !std::isfinite(unit_variance)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "per-report variance must be finite and >= 0, got ", unit_variance));
  }
  const double z = NormalQuantile((1 + goal.confidence) / 2);
  return CeilToCount(z * z * unit_variance / (goal.tolerance * goal.tolerance));
}

absl::StatusOr<int64_t> ReportsNeededHoeffding(double output_range,
                                               const ToleranceGoal& goal) {
  RETURN_IF_ERROR(ValidateGoal(goal));
  if (!(output_range > 0) || !std::isfinite(output_range)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output range must be finite and > 0, got ", output_range));
  }
  const double log_term = std::log(2 / (1 - goal.confidence));
  return CeilToCount(output_range * output_range * log_term /
                     (2 * goal.tolerance * goal.tolerance));
}

absl::StatusOr<int64_t> ReportsNeededSimultaneous(double unit_variance,
                                                  int64_t num_estimates,
                                                  const ToleranceGoal& goal) {
  RETURN_IF_ERROR(ValidateGoal(goal));
  if (num_estimates < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("number of estimates must be >= 1, got ", num_estimates));
  }
  ToleranceGoal each = goal;
  each.confidence =
      1 - (1 - goal.confidence) / static_cast<double>(num_estimates);
  return ReportsNeeded(unit_variance, each);
}

double ToleranceAchieved(double unit_variance, int64_t num_reports,
                         double confidence) {
  if (num_reports <= 0) return INFINITY;
  const double z = NormalQuantile((1 + confidence) / 2);
  return z * std::sqrt(unit_variance / static_cast<double>(num_reports));
}

}  // namespace ldp
