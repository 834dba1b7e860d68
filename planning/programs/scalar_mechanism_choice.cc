// The lowest-variance scalar mechanism at (ε, b); see the header.
#include "planning/programs/scalar_mechanism_choice.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/real/real_mechanism_factory.h"

namespace ldp {
namespace {

constexpr RealMechanismKind kAllKinds[] = {
    RealMechanismKind::kDiscreteLaplace, RealMechanismKind::kDuchi,
    RealMechanismKind::kPiecewise, RealMechanismKind::kHybrid};

// Points of [−b, b] at which E[Decode²] = Var(x) + x² is evaluated. For every
// mechanism here it is, up to the small variance of rounding x to the
// mechanism's own lattice, a convex function of x (a constant, or a
// quadratic plus a constant), so its maximum is at ±b; the interior points
// guard against a future mechanism that is not.
constexpr int kVarianceGridSteps = 16;

}  // namespace

absl::StatusOr<SqMechanismChoice> ChooseScalarMechanism(
    double epsilon, double bound, MechanismCriterion criterion) {
  if (!(epsilon > 0) || !std::isfinite(epsilon) || !(bound > 0) ||
      !std::isfinite(bound)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an SQ mechanism needs finite ε > 0 and bound > 0, got ε = ", epsilon,
        ", bound = ", bound));
  }
  std::optional<SqMechanismChoice> best;
  for (RealMechanismKind kind : kAllKinds) {
    ASSIGN_OR_RETURN(auto mechanism,
                     CreateRealMechanism(
                         {.kind = kind, .epsilon = epsilon, .bound = bound}));
    SqMechanismChoice candidate{
        .kind = kind, .mechanism_variance = mechanism->WorstCaseVariance()};
    for (int j = 0; j <= kVarianceGridSteps; ++j) {
      const double x = bound * (2.0 * j / kVarianceGridSteps - 1);
      candidate.report_variance =
          std::max(candidate.report_variance, mechanism->Variance(x) + x * x);
    }
    const auto score = [criterion](const SqMechanismChoice& c) {
      return criterion == MechanismCriterion::kReportSecondMoment
                 ? c.report_variance
                 : c.mechanism_variance;
    };
    if (!best.has_value() || score(candidate) < score(*best)) best = candidate;
  }
  return *best;
}

absl::StatusOr<SqMechanismChoice> ChooseSqMechanism(double epsilon,
                                                    double bound) {
  return ChooseScalarMechanism(epsilon, bound,
                               MechanismCriterion::kReportSecondMoment);
}

}  // namespace ldp
