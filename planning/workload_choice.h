// The strategy a workload question is answered with: the strategy
// planner's best one that fits in a task, or the kind the analyst named,
// each with what it is measured against (the best fixed strategy and the
// γ₂ bounds) so the plan can say how good the choice is.
#ifndef LDP_PLANNING_WORKLOAD_CHOICE_H_
#define LDP_PLANNING_WORKLOAD_CHOICE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "common/workload/strategies/strategy_planner.h"
#include "common/workload/strategies/workload_estimator.h"
#include "planning/planner.h"

namespace ldp {

// A workload strategy the planning chose, with the estimator it built (if
// any) so the plan need not build it again.
struct ChosenStrategy {
  StrategyDecision decision;
  std::shared_ptr<const WorkloadEstimator> estimator;
};

// INVALID_ARGUMENT when the named kind cannot answer the workload or no
// strategy of it fits in a task.
absl::StatusOr<ChosenStrategy> PlanWorkload(const WorkloadQuestion& question,
                                            double epsilon,
                                            const StrategyPlannerOptions& base);

}  // namespace ldp

#endif  // LDP_PLANNING_WORKLOAD_CHOICE_H_
