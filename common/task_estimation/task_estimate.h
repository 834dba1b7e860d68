// What one task's reports estimate, in plain types: the analyst programs,
// the planner and the server pass it around; only the server's
// accumulators (task_accumulator.h) compute it.
#ifndef LDP_COMMON_TASK_ESTIMATION_TASK_ESTIMATE_H_
#define LDP_COMMON_TASK_ESTIMATION_TASK_ESTIMATE_H_

#include <variant>

#include "common/estimation/estimate.h"
#include "common/estimation/histogram_estimate.h"
#include "common/workload/specs/workload_answer.h"

namespace ldp {

// A scalar, a histogram, or a workload's answers (workload_estimator.h).
using TaskEstimate =
    std::variant<ScalarEstimate, HistogramEstimate, WorkloadAnswer>;

}  // namespace ldp

#endif  // LDP_COMMON_TASK_ESTIMATION_TASK_ESTIMATE_H_
