// k coordinates per agent and the mechanism for each; see the header.
#include "planning/programs/gradient_plan.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "planning/programs/scalar_mechanism_choice.h"

namespace ldp {
namespace {

absl::StatusOr<GradientPlan> PlanFor(int64_t cap_nanos, double clip, int dims,
                                     int k) {
  GradientPlan plan{.coordinates_per_agent = k,
                    .dims = dims,
                    .epsilon_nanos_per_report = cap_nanos / k};
  ASSIGN_OR_RETURN(
      const SqMechanismChoice choice,
      ChooseScalarMechanism(plan.epsilon_nanos_per_report * 1e-9, clip,
                            MechanismCriterion::kMechanismVariance));
  plan.kind = choice.kind;
  const int widest_block = (dims + k - 1) / k;
  plan.variance_factor = widest_block * choice.report_variance;
  return plan;
}

}  // namespace

int GradientPlan::BlockBegin(int b) const {
  return static_cast<int>(static_cast<int64_t>(b) * dims /
                          coordinates_per_agent);
}

std::string GradientPlan::Describe() const {
  const std::string mechanism(RealMechanismKindName(kind));
  if (coordinates_per_agent == 1) {
    return absl::StrFormat("1 coordinate per agent at the full ε = %g, %s",
                           epsilon_nanos_per_report * 1e-9, mechanism);
  }
  return absl::StrFormat("%d coordinates per agent at ε/%d = %g each, %s",
                         coordinates_per_agent, coordinates_per_agent,
                         epsilon_nanos_per_report * 1e-9, mechanism);
}

absl::StatusOr<int> ParseCoordinatesPerAgent(absl::string_view text) {
  if (text == "auto") return 0;
  int k = 0;
  if (!absl::SimpleAtoi(text, &k) || k < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "coordinates_per_agent must be \"auto\" or an integer ≥ 1; got \"",
        text, "\""));
  }
  return k;
}

absl::StatusOr<GradientPlan> PlanGradientReports(int64_t epsilon_cap_nanos,
                                                 double clip, int dims,
                                                 int coordinates_per_agent) {
  if (epsilon_cap_nanos <= 0 || !(clip > 0) || dims < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a gradient plan needs ε > 0, clip > 0 and at least one coordinate; "
        "got ε = ",
        epsilon_cap_nanos * 1e-9, ", clip = ", clip, ", ", dims,
        " coordinates"));
  }
  const int max_k = std::min(dims, kMaxCoordinatesPerAgent);
  if (coordinates_per_agent != 0) {
    if (coordinates_per_agent < 1 || coordinates_per_agent > max_k ||
        epsilon_cap_nanos / coordinates_per_agent < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "coordinates per agent must be in [1, ", max_k, "] (at most the ",
          dims, " coordinates and ", kMaxCoordinatesPerAgent,
          ") with ε/k ≥ 1 nano-ε; got ", coordinates_per_agent));
    }
    return PlanFor(epsilon_cap_nanos, clip, dims, coordinates_per_agent);
  }
  ASSIGN_OR_RETURN(GradientPlan best,
                   PlanFor(epsilon_cap_nanos, clip, dims, 1));
  for (int k = 2; k <= max_k && epsilon_cap_nanos / k >= 1; ++k) {
    ASSIGN_OR_RETURN(GradientPlan plan,
                     PlanFor(epsilon_cap_nanos, clip, dims, k));
    if (plan.variance_factor < best.variance_factor) best = plan;
  }
  return best;
}

}  // namespace ldp
