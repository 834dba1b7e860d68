// The planner's step for a shuffled study: every question's ε becomes the
// local ε0 that the shuffle model lets it use.
//
// Why here and not in the agent or the server's edge: ε0 is a plan
// decision like any other εₜ. It is stored with the plan, charged by every
// agent (the guarantee against a server colluding with the shuffler), and
// fixed before any report arrives. The central guarantee follows from it
// and the batch sizes (common/amplification/).
#ifndef LDP_PLANNING_SHUFFLE_PLAN_H_
#define LDP_PLANNING_SHUFFLE_PLAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"

namespace ldp {

struct ShuffledQuestions {
  // The spec with every question's epsilon_nanos set: ε0 (at most the cap)
  // where it was 0, and unchanged where the analyst set it.
  StudySpec spec;
  // The largest ε0 that meets the target at min_batch.
  double largest_epsilon0 = 0;
  // One line for the plan's explanation.
  std::string explanation;
};

// For spec.shuffle set. INVALID_ARGUMENT if a question's explicit ε is
// above the largest ε0 (the target would not hold), naming both.
absl::StatusOr<ShuffledQuestions> PlanShuffledEpsilons(const StudySpec& spec);

}  // namespace ldp

#endif  // LDP_PLANNING_SHUFFLE_PLAN_H_
