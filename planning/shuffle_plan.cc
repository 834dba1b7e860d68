// Shuffled studies' ε0; see the header.
#include "planning/shuffle_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/amplification/epsilon0_planner.h"
#include "common/base/status_macros.h"
#include "common/tasks/task.h"

namespace ldp {

absl::StatusOr<ShuffledQuestions> PlanShuffledEpsilons(const StudySpec& spec) {
  const ShuffleSpec& shuffle = *spec.shuffle;
  ASSIGN_OR_RETURN(const Epsilon0Plan plan,
                   LargestEpsilon0ForTarget(shuffle.target_epsilon,
                                            shuffle.min_batch, shuffle.delta));
  // Rounded down to whole nano-ε: never above what meets the target.
  const int64_t largest_nanos =
      static_cast<int64_t>(std::floor(plan.epsilon0 * kNanosPerEpsilon));
  ShuffledQuestions result{.spec = spec, .largest_epsilon0 = plan.epsilon0};
  for (Question& q : result.spec.questions) {
    if (q.epsilon_nanos > largest_nanos) {
      return absl::InvalidArgumentError(
          absl::StrCat("question ", q.id, ": epsilon_nanos ", q.epsilon_nanos,
                       " is above the largest local epsilon0 (", largest_nanos,
                       " nano-epsilon) that meets the shuffled target epsilon ",
                       shuffle.target_epsilon, " at min_batch ",
                       shuffle.min_batch, "; leave it 0 for the planner"));
    }
    if (q.epsilon_nanos == 0) {
      q.epsilon_nanos = std::min(largest_nanos, spec.epsilon_cap_nanos);
    }
  }
  result.explanation = absl::StrFormat(
      "shuffled: each report is local epsilon0 = %.4g (the largest that "
      "batches of >= %d make (%.4g, %.3g)-DP against the server alone)",
      plan.epsilon0, shuffle.min_batch, shuffle.target_epsilon, shuffle.delta);
  return result;
}

}  // namespace ldp
