// The ε0 planner; see the header. ε0 = target always meets the target, so
// the search doubles an upper end until it fails, bisects down to the
// tolerance, and finally steps past any spot where rounding made the
// bound's values not quite monotone in ε0, so that ε0 + tolerance fails.
#include "common/amplification/epsilon0_planner.h"

#include <algorithm>

#include "common/amplification/numerical_bound.h"
#include "common/amplification/shuffle_inputs.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {

absl::StatusOr<Epsilon0Plan> LargestEpsilon0ForTarget(double target_epsilon,
                                                      int64_t n, double delta) {
  RETURN_IF_ERROR(ValidateEpsilonField("shuffle amplification",
                                       "target_epsilon", target_epsilon,
                                       kMaxShuffleEpsilon0));
  RETURN_IF_ERROR(ValidateShuffledReports(n));
  RETURN_IF_ERROR(ValidateDelta(delta));
  auto meets = [&](double epsilon0) -> absl::StatusOr<bool> {
    ASSIGN_OR_RETURN(const double shuffled,
                     ShuffledEpsilon(epsilon0, n, delta));
    return shuffled <= target_epsilon;
  };
  double low = target_epsilon;  // meets: shuffling never hurts
  double high = low;
  while (true) {  // double until an upper end fails, or ε0 reaches its cap
    if (high >= kMaxShuffleEpsilon0) break;
    high = std::min(kMaxShuffleEpsilon0, 2 * high);
    ASSIGN_OR_RETURN(const bool ok, meets(high));
    if (!ok) break;
    low = high;
  }
  while (high - low > kEpsilon0Tolerance) {
    const double middle = low + (high - low) / 2;
    ASSIGN_OR_RETURN(const bool ok, meets(middle));
    (ok ? low : high) = middle;
  }
  while (low + kEpsilon0Tolerance <= kMaxShuffleEpsilon0) {
    ASSIGN_OR_RETURN(const bool ok, meets(low + kEpsilon0Tolerance));
    if (!ok) break;
    low += kEpsilon0Tolerance;
  }
  Epsilon0Plan plan{.epsilon0 = low, .amplified = low > target_epsilon};
  ASSIGN_OR_RETURN(plan.shuffled_epsilon, ShuffledEpsilon(low, n, delta));
  return plan;
}

}  // namespace ldp
